import { HDKey } from 'viem/accounts';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { errorLines, RunningServer, startServer } from '../../support/server';
import { createInvoice } from '../payments/payments-helpers';
import { addressAt, freshAccount, writeChainsFile } from './rails-helpers';

/** Both modes configured (on different chains); no node answers, which handing out addresses does not need. */
const CHAINS = {
  live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1, confirmations: 12 } },
  test: { ethereum: { rpc_url: 'http://127.0.0.1:10/', chain_id: 31337, tokens: { usdt: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } } },
};

/** The same account key serialized with another parent fingerprint and child number (as another wallet app may export it). */
function reexported(xpub: string): string {
  const key = HDKey.fromExtendedKey(xpub);
  const other = new HDKey({ publicKey: key.publicKey!, chainCode: key.chainCode!, depth: 3, index: 0x80000007, parentFingerprint: 0x0badf00d });
  expect(other.publicExtendedKey).not.toBe(xpub);
  return other.publicExtendedKey;
}

async function addressFor(api: Api, providerId = 'prov_ethereum_ethereum') {
  const invoiceId = await createInvoice(api, '5');
  return api.post(`/invoices/${invoiceId}/payment_address`, { provider_id: providerId });
}

describe('one address-index counter per account key, held by one organization in both its modes and whatever serialization registers it', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CHAINS_FILE: writeChainsFile(CHAINS), CHAIN_WATCHER: 'false' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('hands out every address of a key once across both modes of an organization, also under concurrent calls', async () => {
    const { account, xpub } = freshAccount();
    const a = await service.createOrg();
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub }), 201);

    // One after the other, alternating: each takes the next index of the one key.
    const order = [a.test, a.live, a.live, a.test, a.test, a.live];
    const addresses: string[] = [];
    for (const api of order) addresses.push(expectSuccess(await addressFor(api)).address);
    expect(addresses).toEqual(order.map((_, i) => addressAt(account, i)));

    // At once, from both modes: no refusal, no 500, and still no address twice.
    const burst = await Promise.all(Array.from({ length: 15 }, (_, i) => addressFor([a.test, a.live][i % 2], i % 3 ? 'prov_ethereum_usdt' : undefined)));
    for (const res of burst) addresses.push(expectSuccess(res).address);
    expect(new Set(addresses).size).toBe(21);
    expect(new Set(addresses)).toEqual(new Set(Array.from({ length: 21 }, (_, i) => addressAt(account, i))));

    // Every wallet of the key shows how far the key has been used.
    for (const api of [a.test, a.live]) expect(expectSuccess(await api.get('/wallets')).items[0].addresses_issued).toBe(21);
    expect(errorLines(service.server)).toEqual([]);
  });

  it("refuses a key another organization registered, in either mode and any serialization, naming no organization; the holder's counter and addresses are untouched", async () => {
    const { account, xpub } = freshAccount();
    const a = await service.createOrg('Holder of the key');
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    for (let i = 0; i < 3; i++) expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, i));

    const b = await service.createOrg('Another organization');
    for (const [api, key] of [
      [b.test, xpub],
      [b.live, xpub],
      [b.test, reexported(xpub)],
    ] as const) {
      const res = await api.post('/wallets', { chain_family: 'evm', xpub: key });
      const error = expectError(res, 400, { code: 'invalid_xpub', field: 'xpub' });
      expect(error.validator).toEqual({ xpub: expect.stringMatching(/^is registered by another organization; register another account of your wallet/) });
      for (const secret of [a.id, 'Holder of the key', a.testKey, key.slice(4, 30)]) expect(res.text).not.toContain(secret);
    }
    // Nothing registered for B, nothing taken from the key's counter, A goes on where it was.
    for (const api of [b.test, b.live]) expect(expectSuccess(await api.get('/wallets')).total).toBe(0);
    expectError(await addressFor(b.test), 400, { field: 'provider_id' });
    expect(expectSuccess(await a.test.get('/wallets')).items[0]).toMatchObject({ addresses_issued: 3 });
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 3));

    // Replaced or deleted, the holder's wallet still keeps the key: its counter holds the holder's count.
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expectError(await b.test.post('/wallets', { chain_family: 'evm', xpub }), 400, { code: 'invalid_xpub', field: 'xpub' });
    const old = (expectSuccess(await a.test.get('/wallets')).items as Array<{ id: string; active: boolean }>).find((w) => !w.active)!;
    expectSuccess(await a.test.delete(`/wallets/${old.id}`));
    expectError(await b.test.post('/wallets', { chain_family: 'evm', xpub }), 400, { code: 'invalid_xpub', field: 'xpub' });

    // The holder registers it again after deleting it (and in its other mode): it goes on after its highest index.
    expect(expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201)).toMatchObject({ addresses_issued: 4 });
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 4));
    expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub: reexported(xpub) }), 201);
    expect(expectSuccess(await addressFor(a.live)).address).toBe(addressAt(account, 5));
    expect(errorLines(service.server)).toEqual([]);
  });

  it('lets one of two organizations registering a new key at once have it, and refuses the other', async () => {
    const { xpub } = freshAccount();
    const [a, b] = [await service.createOrg(), await service.createOrg()];
    const answers = await Promise.all([a, b].map((org) => org.test.post('/wallets', { chain_family: 'evm', xpub })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(answers.find((r) => r.status === 400)!.body.validator).toEqual({ xpub: expect.stringMatching(/^is registered by another organization/) });
    expect(errorLines(service.server)).toEqual([]);
  });

  it('recognises the key exported with another parent fingerprint and child number as the same key', async () => {
    const { account, xpub } = freshAccount();
    const a = await service.createOrg();
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 0));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 1));

    // The organization's live mode registers the other export: it goes on at index 2.
    const other = reexported(xpub);
    const registered = expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub: other }), 201);
    expect(registered).toMatchObject({ first_address: addressAt(account, 0), addresses_issued: 2 });
    expect(expectSuccess(await addressFor(a.live)).address).toBe(addressAt(account, 2));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 3));
  });

  it('skips addresses already handed out when the counter is behind them (no 500)', async () => {
    if (!service.databaseUrl) return;
    const { account, xpub } = freshAccount();
    const a = await service.createOrg();
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    for (let i = 0; i < 3; i++) expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, i));
    // A counter behind the addresses of its key (as a database restored from an older backup could hold).
    await withClient(service.databaseUrl, (c) =>
      c.query(
        `UPDATE account_key_counters SET next_index = 0 WHERE key_fingerprint = (SELECT key_fingerprint FROM receiving_wallets WHERE organization_id = $1)`,
        [a.id],
      ),
    );
    // The key registered again in the same mode (a new wallet row of the key): indexes 0 to 2 are skipped.
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 3));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 4));
  });
});

describe('keys registered before fingerprints existed', () => {
  it('are fingerprinted at start, and their counter continues after the highest index any wallet of the key handed out', async () => {
    const pgServer = process.env.TEST_PG_SERVER_URL;
    if (!pgServer) return;
    const env = { CHAINS_FILE: writeChainsFile(CHAINS), CHAIN_WATCHER: 'false' };
    const service = await startIsolatedService(env);
    let restarted: RunningServer | null = null;
    try {
      const { account, xpub } = freshAccount();
      const a = await service.createOrg();
      expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
      expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub: reexported(xpub) }), 201);
      for (let i = 0; i < 3; i++) expectSuccess(await addressFor(a.test));
      expectSuccess(await addressFor(a.live));
      await service.server.stop();
      // As an older version left them: no fingerprints, no counters, each wallet with its own count.
      await withClient(service.databaseUrl!, async (c) => {
        await c.query(`UPDATE receiving_wallets SET key_fingerprint = NULL`);
        await c.query(`DELETE FROM account_key_counters`);
      });
      restarted = await startServer({ databaseUrl: service.databaseUrl!, env });
      const fingerprints = await withClient(service.databaseUrl!, async (c) => (await c.query(`SELECT DISTINCT key_fingerprint FROM receiving_wallets`)).rows);
      expect(fingerprints).toHaveLength(1);
      expect(fingerprints[0].key_fingerprint).toMatch(/^[0-9a-f]{64}$/);
      const aTest = new Api(a.testKey, restarted.baseUrl);
      const aLive = new Api(a.liveKey, restarted.baseUrl);
      expect(expectSuccess(await addressFor(aLive)).address).toBe(addressAt(account, 4));
      expect(expectSuccess(await addressFor(aTest)).address).toBe(addressAt(account, 5));
      expect(errorLines(restarted)).toEqual([]);
    } finally {
      await restarted?.stop();
      await service.stop();
    }
  }, 180_000);
});
