import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { accountKey, freshAccount, HARDHAT_ACCOUNTS, HARDHAT_KEY_0, MNEMONIC, XPRV_0, XPUB_0 } from './rails-helpers';

const WALLET_ID = /^wallet_[0-9a-f-]{36}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describe('receiving wallets (POST/GET/DELETE /wallets)', () => {
  it('requires a valid key', async () => {
    expectError(await new Api(null).post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 401);
    expectError(await new Api('sk_test_doesnotexistdoesnotexist0001').get('/wallets'), 401);
    expectError(await new Api(null).get('/wallets/wallet_00000000-0000-7000-8000-000000000000'), 401);
    expectError(await new Api(null).delete('/wallets/wallet_00000000-0000-7000-8000-000000000000'), 401);
  });

  it("registers an account xpub: first_address is the wallet's first receive address; reads and lists it without the key", async () => {
    const org = await createOrg();
    const created = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 201);
    expect(created).toEqual({
      id: expect.stringMatching(WALLET_ID),
      chain_family: 'evm',
      network: null,
      first_address: HARDHAT_ACCOUNTS[0],
      active: true,
      addresses_issued: 0,
      unused_gap: 0,
      created_at: expect.stringMatching(TIMESTAMP),
      replaced_at: null,
    });
    expect(expectSuccess(await org.test.get(`/wallets/${created.id}`))).toEqual(created);
    const list = expectSuccess(await org.test.get('/wallets'));
    expect(list).toEqual({ items: [created], total: 1, limit: 20, offset: 0, has_more: false });
    expect(JSON.stringify(list)).not.toContain(XPUB_0);
    // The other mode has its own wallets.
    expect(expectSuccess(await org.live.get('/wallets')).total).toBe(0);
  });

  it('keeps one active wallet per organization, mode and family: a new one replaces it', async () => {
    const org = await createOrg();
    // Keys of its own: a key another organization registered is refused (shared-keys.e2e-spec.ts).
    const key = freshAccount().xpub;
    const first = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: key }), 201);
    const second = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expect(second.active).toBe(true);
    expect(second.first_address).not.toBe(first.first_address);
    const before = expectSuccess(await org.test.get(`/wallets/${first.id}`));
    expect(before).toMatchObject({ active: false, replaced_at: expect.stringMatching(TIMESTAMP) });
    const list = expectSuccess(await org.test.get('/wallets?limit=1'));
    expect(list).toMatchObject({ total: 2, limit: 1, has_more: true });
    expect(list.items.map((w: any) => w.id)).toEqual([second.id]);
    expect(expectSuccess(await org.test.get('/wallets?offset=1')).items.map((w: any) => w.id)).toEqual([first.id]);
    // A live wallet does not replace the test one.
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: key }), 201);
    expect(expectSuccess(await org.test.get(`/wallets/${second.id}`)).active).toBe(true);
  });

  it('deletes a wallet: gone from reads and lists, 404 afterwards', async () => {
    const org = await createOrg();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expect(expectSuccess(await org.test.delete(`/wallets/${wallet.id}`))).toEqual({ id: wallet.id, deleted: true });
    expectError(await org.test.get(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expectError(await org.test.delete(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expect(expectSuccess(await org.test.get('/wallets')).total).toBe(0);
  });

  it("answers 404 for another organization's wallet and for the other mode's", async () => {
    const a = await createOrg();
    const b = await createOrg();
    const wallet = expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expectError(await b.test.get(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expectError(await b.test.delete(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expectError(await a.live.get(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expectError(await a.live.delete(`/wallets/${wallet.id}`), 404, { code: 'wallet_not_found' });
    expect(expectSuccess(await b.test.get('/wallets')).total).toBe(0);
    expect(expectSuccess(await a.test.get(`/wallets/${wallet.id}`)).active).toBe(true);
    expectError(await a.test.get('/wallets/whatever'), 404, { code: 'wallet_not_found' });
  });

  it('a read-only key may read but not register or delete', async () => {
    const org = await createOrg();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const reader = new Api(await createKey(org.id, 'test', true));
    expectError(await reader.post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 403);
    expectError(await reader.delete(`/wallets/${wallet.id}`), 403);
    expect(expectSuccess(await reader.get(`/wallets/${wallet.id}`)).id).toBe(wallet.id);
  });

  it.each([
    [{ xpub: XPUB_0 }, 'chain_family'],
    [{ chain_family: 'ripple', xpub: XPUB_0 }, 'chain_family'],
    // A Solana wallet is registered by its address, not an account key; an EVM key takes no address.
    [{ chain_family: 'solana', xpub: XPUB_0 }, 'xpub'],
    [{ chain_family: 'solana' }, 'address'],
    [{ chain_family: 'evm', xpub: XPUB_0, address: 'mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN' }, 'address'],
    // A UTXO key belongs to one network: it must be named, and be one of theirs; an EVM key serves all EVM networks.
    [{ chain_family: 'utxo', xpub: XPUB_0 }, 'network'],
    [{ chain_family: 'utxo', network: 'ethereum', xpub: XPUB_0 }, 'network'],
    [{ chain_family: 'evm', network: 'litecoin', xpub: XPUB_0 }, 'network'],
    // An xpub is a Bitcoin mainnet key: refused for a test-mode Bitcoin wallet.
    [{ chain_family: 'utxo', network: 'bitcoin', xpub: XPUB_0 }, 'xpub'],
    [{ chain_family: 'evm' }, 'xpub'],
    [{ chain_family: 'evm', xpub: 42 }, 'xpub'],
    [{ chain_family: 'evm', xpub: 'x'.repeat(401) }, 'xpub'],
    [{ chain_family: 'evm', xpub: 'xpub-not-a-key' }, 'xpub'],
    [{ chain_family: 'evm', xpub: XPUB_0.slice(0, -2) + 'zz' }, 'xpub'],
    [{ chain_family: 'evm', xpub: accountKey(0).derive('m/0').publicExtendedKey }, 'xpub'],
  ])('400 for %j naming %s', async (body, field) => {
    const org = await createOrg();
    expectError(await org.test.post('/wallets', body), 400, { field });
    expect(expectSuccess(await org.test.get('/wallets')).total).toBe(0);
  });
});

describe('private keys sent as xpub, and the stored key', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('stores the xpub sealed (SECRETS_KEY), and still derives from it', async () => {
    const org = await service.createOrg();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 201);
    if (!service.databaseUrl) return;
    const [row] = await withClient(
      service.databaseUrl,
      async (c) => (await c.query(`SELECT xpub, key_fingerprint FROM receiving_wallets WHERE id = $1`, [wallet.id])).rows,
    );
    expect(row.xpub).toMatch(/^sealed:v1:[0-9a-f]{8}:/);
    expect(row.xpub).not.toContain(XPUB_0.slice(4, 30));
    expect(row.key_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(expectSuccess(await org.test.get(`/wallets/${wallet.id}`)).first_address).toBe(HARDHAT_ACCOUNTS[0]);
  });

  it.each([
    ['an xprv', XPRV_0],
    ['a hex private key', HARDHAT_KEY_0],
    ['a recovery phrase', MNEMONIC],
  ])('refuses %s with 400 naming xpub; it is in no log line and not stored', async (_, secret) => {
    const org = await service.createOrg();
    const res = await org.test.post('/wallets', { chain_family: 'evm', xpub: secret });
    const error = expectError(res, 400, { code: 'invalid_xpub', field: 'xpub' });
    expect(error.validator.xpub).toMatch(/never a (private key|recovery phrase)/);
    expect(res.text).not.toContain(secret);
    expect(expectSuccess(await org.test.get('/wallets')).total).toBe(0);
    // Give the logger a moment to flush, then look through everything the service wrote.
    await new Promise((r) => setTimeout(r, 200));
    // The request itself was logged (so the log is looked at), without the key.
    expect(service.server.output()).toContain(res.body.log.request_id);
    expect(service.server.output()).not.toContain(secret);
    expect(service.server.output()).not.toContain(secret.slice(0, 40));
    if (service.databaseUrl) {
      const stored = await withClient(
        service.databaseUrl,
        async (c) =>
          (await c.query(`SELECT count(*)::int AS n FROM receiving_wallets WHERE xpub = $1 OR xpub LIKE $2`, [secret, `${secret.slice(0, 30)}%`])).rows[0].n,
      );
      expect(stored).toBe(0);
    }
  });
});
