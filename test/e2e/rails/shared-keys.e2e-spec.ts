import { HDKey } from 'viem/accounts';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
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

describe('one address-index counter per account key, whatever organization, mode or serialization registers it', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CHAINS_FILE: writeChainsFile(CHAINS), CHAIN_WATCHER: 'false' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('hands out every address of a key once across two organizations and both modes of one, also under concurrent calls', async () => {
    const { account, xpub } = freshAccount();
    const a = await service.createOrg();
    const b = await service.createOrg();
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expectSuccess(await b.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub }), 201);

    // One after the other, alternating: each takes the next index of the one key.
    const order = [a.test, b.test, a.live, b.test, a.test, a.live];
    const addresses: string[] = [];
    for (const api of order) addresses.push(expectSuccess(await addressFor(api)).address);
    expect(addresses).toEqual(order.map((_, i) => addressAt(account, i)));

    // At once, from all three: no refusal, no 500, and still no address twice.
    const burst = await Promise.all(
      Array.from({ length: 15 }, (_, i) => addressFor([a.test, b.test, a.live][i % 3], i % 2 ? 'prov_ethereum_usdt' : undefined)),
    );
    for (const res of burst) addresses.push(expectSuccess(res).address);
    expect(new Set(addresses).size).toBe(21);
    expect(new Set(addresses)).toEqual(new Set(Array.from({ length: 21 }, (_, i) => addressAt(account, i))));

    // Every wallet of the key shows how far the key has been used.
    for (const api of [a.test, b.test, a.live]) expect(expectSuccess(await api.get('/wallets')).items[0].addresses_issued).toBe(21);
    expect(errorLines(service.server)).toEqual([]);
  });

  it('recognises the key exported with another parent fingerprint and child number as the same key', async () => {
    const { account, xpub } = freshAccount();
    const a = await service.createOrg();
    expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 0));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 1));

    // Another organization, and the first one's live mode, register the other export: it goes on at index 2.
    const b = await service.createOrg();
    const other = reexported(xpub);
    const registered = expectSuccess(await b.test.post('/wallets', { chain_family: 'evm', xpub: other }), 201);
    expect(registered).toMatchObject({ first_address: addressAt(account, 0), addresses_issued: 2 });
    expect(expectSuccess(await addressFor(b.test)).address).toBe(addressAt(account, 2));
    expectSuccess(await a.live.post('/wallets', { chain_family: 'evm', xpub: other }), 201);
    expect(expectSuccess(await addressFor(a.live)).address).toBe(addressAt(account, 3));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 4));
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
    const b = await service.createOrg();
    expectSuccess(await b.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
    expect(expectSuccess(await addressFor(b.test)).address).toBe(addressAt(account, 3));
    expect(expectSuccess(await addressFor(a.test)).address).toBe(addressAt(account, 4));
  });
});

describe('keys registered before fingerprints existed', () => {
  it('are fingerprinted at start, and their counter continues after the highest index any organization handed out', async () => {
    const pgServer = process.env.TEST_PG_SERVER_URL;
    if (!pgServer) return;
    const env = { CHAINS_FILE: writeChainsFile(CHAINS), CHAIN_WATCHER: 'false' };
    const service = await startIsolatedService(env);
    let restarted: RunningServer | null = null;
    try {
      const { account, xpub } = freshAccount();
      const a = await service.createOrg();
      const b = await service.createOrg();
      expectSuccess(await a.test.post('/wallets', { chain_family: 'evm', xpub }), 201);
      expectSuccess(await b.live.post('/wallets', { chain_family: 'evm', xpub: reexported(xpub) }), 201);
      for (let i = 0; i < 3; i++) expectSuccess(await addressFor(a.test));
      expectSuccess(await addressFor(b.live));
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
      const bLive = new Api(b.liveKey, restarted.baseUrl);
      expect(expectSuccess(await addressFor(bLive)).address).toBe(addressAt(account, 4));
      expect(expectSuccess(await addressFor(aTest)).address).toBe(addressAt(account, 5));
      expect(errorLines(restarted)).toEqual([]);
    } finally {
      await restarted?.stop();
      await service.stop();
    }
  }, 180_000);
});
