import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleOrg, consoleOrg, sql } from '../../support/console-client';
import { accountKey, addressAt, XPRV_0 } from '../rails/rails-helpers';

/** A watch-only account key no other test registers (a key belongs to the first organization that registers it). */
function uniqueAccount(): { account: number; xpub: string } {
  const account = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
  return { account, xpub: accountKey(account).publicExtendedKey };
}

describe('management console: wallets', () => {
  let org: ConsoleOrg;
  beforeAll(async () => {
    org = await consoleOrg();
  });

  it('registers a watch-only key: first address, addresses issued and gap, as the API reads them; the key is never shown', async () => {
    const { account, xpub } = uniqueAccount();
    const res = await org.owner.submit('/console/test/wallets', '/console/test/wallets', { chain_family: 'evm', network: '', xpub });
    expect(res.status).toBe(201);
    const first = addressAt(account, 0);
    expect(res.text).toContain(first);
    expect(res.text).not.toContain(xpub);
    const [wallet] = expectSuccess(await new Api(org.testKey).get('/wallets')).items;
    expect(wallet).toMatchObject({ chain_family: 'evm', first_address: first, active: true, addresses_issued: 0, unused_gap: 0 });
    const page = await org.owner.get('/console/test/wallets');
    expect(page.text).toContain(`data-wallet="${wallet.id}"`);
    expect(page.text).not.toContain(xpub);
    // The live mode has its own wallets.
    expect((await org.owner.get('/console/live/wallets')).text).not.toContain(wallet.id);
    const [audit] = await sql<{ action: string; mode: string }>(`SELECT action, mode FROM console_audit_log WHERE organization_id = $1 AND target = $2`, [
      org.organizationId,
      wallet.id,
    ]);
    expect(audit).toEqual({ action: 'wallet.register', mode: 'test' });
  });

  it('refuses a private key and an unknown family, naming the field, never echoing the key, and registers nothing', async () => {
    const o = await consoleOrg();
    const priv = await o.owner.submit('/console/test/wallets', '/console/test/wallets', { chain_family: 'evm', network: '', xpub: XPRV_0 });
    expect(priv.status).toBe(400);
    expect(priv.text).toContain('xpub');
    expect(priv.text).not.toContain(XPRV_0);
    const family = await o.owner.submit('/console/test/wallets', '/console/test/wallets', { chain_family: 'nope', network: '', xpub: uniqueAccount().xpub });
    expect(family.status).toBe(400);
    expect(family.text).toContain('chain_family must be one of');
    expect(expectSuccess(await new Api(o.testKey).get('/wallets')).items).toEqual([]);
  });

  it.each([
    ['analyst', false, false],
    ['support', false, false],
    ['developer', true, false],
    ['admin', true, true],
  ] as const)('%s: register allowed in test mode %s, in live mode %s (absent and refused otherwise)', async (role, inTest, inLive) => {
    const o = await consoleOrg();
    const { client } = await addMember(o.owner, role);
    for (const [mode, key, allowed] of [
      ['test', o.testKey, inTest],
      ['live', o.liveKey, inLive],
    ] as const) {
      const page = await client.get(`/console/${mode}/wallets`);
      expect(page.status).toBe(200);
      expect({ mode, form: page.text.includes('Register a watch-only key') }).toEqual({ mode, form: allowed });
      const res = await client.submit(`/console/${mode}/wallets`, `/console/${mode}/wallets`, { chain_family: 'evm', network: '', xpub: uniqueAccount().xpub });
      expect({ mode, status: res.status }).toEqual({ mode, status: allowed ? 201 : 403 });
      expect(expectSuccess(await new Api(key).get('/wallets')).items).toHaveLength(allowed ? 1 : 0);
    }
  });
});
