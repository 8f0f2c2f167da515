import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { LitecoinNode } from '../../chain/litecoin-node';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, sharedDatabase, waitForPayments } from './chain-helpers';
import { writeChainsFile } from './rails-helpers';

const LTC = 'prov_litecoin_litecoin';
const WATCHER_ENV = { CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100' };

async function createShop(server: RunningServer) {
  const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Litecoin shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  const { test_key } = res.body.data;
  const test = new Api(test_key, server.baseUrl);
  const vpub = HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
  expectSuccess(await test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: vpub }), 201);
  return { test, key: test_key as string };
}

/** The watcher's chain_head_block sample on an instance's /metrics, or null when it does not watch. */
async function watchedHead(server: RunningServer): Promise<number | null> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const match = /^chain_head_block\{network="litecoin",mode="test"\} (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

describe('the UTXO watcher across crashes and two instances (Litecoin Core, regtest)', () => {
  let node: LitecoinNode;
  let chainsFile: string;
  beforeAll(async () => {
    node = await LitecoinNode.start();
    chainsFile = writeChainsFile({
      test: { litecoin: { rpc_url: node.rpcUrl, chain: 'regtest', poll_interval_ms: 150, confirmations: 20, max_block_range: 2 } },
    });
  }, 180_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('records every payment exactly once when the service is SIGKILLed while payments arrive, and restarts from its cursor', async () => {
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: chainsFile };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await createShop(server);
      const invoices = await Promise.all(Array.from({ length: 6 }, () => createInvoice(shop.test, '0.3', 'LITECOIN')));
      const addresses: string[] = [];
      for (const id of invoices) addresses.push((await paymentAddress(shop.test, id, LTC)).address as string);
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      for (let i = 0; i < addresses.length; i++) {
        await node.send(addresses[i], '0.3');
        await node.mine(1);
        if (i === 2) {
          await new Promise((r) => setTimeout(r, 150));
          await server.stop('SIGKILL');
        }
      }
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.key, server.baseUrl);
      await node.mine(6);
      for (const id of invoices) {
        const payments = await waitForPayments(api, id, (p) => p.length >= 1 && p.every((x) => x.status === 'COMPLETED'), 40_000);
        expect(payments).toHaveLength(1);
      }
      const all = expectSuccess(await api.post('/payments', { limit: 100 }));
      expect(all.total).toBe(invoices.length);
      expect(new Set(all.items.map((p: any) => p.idempotency_key)).size).toBe(invoices.length);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('runs one watcher across two instances; when it dies the other takes over, without duplicates', async () => {
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: chainsFile };
    const a = await startServer({ databaseUrl: db.url, env });
    const b = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await createShop(a);
      await eventually(async () => {
        const heads = [await watchedHead(a), await watchedHead(b)];
        expect(heads.filter((h) => h !== null)).toHaveLength(1);
      });
      const [holder, standby] = (await watchedHead(a)) !== null ? [a, b] : [b, a];
      const first = await createInvoice(shop.test, '0.4', 'LITECOIN');
      const second = await createInvoice(shop.test, '0.5', 'LITECOIN');
      const pa = await paymentAddress(shop.test, first, LTC);
      const pb = await paymentAddress(shop.test, second, LTC);
      await node.send(pa.address, '0.4');
      await waitForPayments(shop.test, first, (p) => p.length === 1);
      expect(await watchedHead(standby)).toBeNull();

      await holder.stop('SIGKILL');
      await node.send(pb.address, '0.5');
      const survivor = new Api(shop.key, standby.baseUrl);
      await waitForPayments(survivor, second, (p) => p.length === 1, 20_000);
      expect(await watchedHead(standby)).not.toBeNull();
      await node.mine(6);
      for (const id of [first, second]) {
        const payments = await waitForPayments(survivor, id, (p) => p.length >= 1 && p[0].status === 'COMPLETED', 30_000);
        expect(payments).toHaveLength(1);
      }
    } finally {
      await a.stop();
      await b.stop();
      await db.drop();
    }
  });
});
