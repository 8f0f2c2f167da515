import { LocalChain } from '../../chain/local-chain';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, freePort, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice, D, shortState } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, sharedDatabase, units, waitForPayments } from './chain-helpers';
import { addressAt, freshAccount, writeChainsFile } from './rails-helpers';
import { RpcProxy } from './rpc-proxy';

const WATCHER_ENV = { CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100' };

async function createOrg(server: RunningServer) {
  const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Chain shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  const { organization_id, test_key } = res.body.data;
  const test = new Api(test_key, server.baseUrl);
  const { account, xpub } = freshAccount();
  expectSuccess(await test.post('/wallets', { chain_family: 'evm', xpub }), 201);
  return { id: organization_id as string, test, key: test_key as string, at: (i: number) => addressAt(account, i) };
}

/** The watcher's chain_head_block sample on an instance's /metrics, or null when it does not watch. */
async function watchedHead(server: RunningServer): Promise<number | null> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const match = /^chain_head_block\{network="ethereum",mode="test"\} (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

async function rpcErrors(server: RunningServer): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(/^chain_rpc_errors_total\{network="ethereum",mode="test"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('the chain watcher across reorgs, crashes, takeovers and RPC outages', () => {
  let chain: LocalChain;
  let usdt: `0x${string}`;
  beforeAll(async () => {
    chain = await LocalChain.start();
    usdt = await chain.deployToken('USDT');
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  const chainsFile = (rpcUrl: string, extra: Record<string, unknown> = {}) =>
    writeChainsFile({ test: { ethereum: { rpc_url: rpcUrl, chain_id: 31337, tokens: { usdt }, poll_interval_ms: 100, confirmations: 30, ...extra } } });

  it('cancels a payment whose block a reorg removed, moves the invoice back and sends the events', async () => {
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl) } });
    try {
      const shop = await createOrg(server);
      const invoiceId = await createInvoice(shop.test, '10', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId);
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      const snapshot = await chain.test.snapshot();
      const hash = await chain.sendToken(usdt, 1, pay.address, units('10', 6));
      const { blockNumber } = await chain.receipt(hash);
      await chain.mine(1);
      const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
      expect(seen.status).toBe('PENDING');
      expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

      // The blocks holding the payment are replaced by others (a longer fork without the transaction).
      await chain.test.revert({ id: snapshot });
      await chain.mine(4);
      expect(await chain.blockNumber()).toBeGreaterThan(blockNumber);
      const [cancelled] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED');
      expect(cancelled.id).toBe(seen.id);
      expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'PENDING' });
      const events = expectSuccess(await shop.test.post('/events', { limit: 100 })).items as Array<{
        type: string;
        data: { object: { id: string; status?: string } };
      }>;
      expect(events.some((e) => e.type === 'payment.updated' && e.data.object.id === seen.id && e.data.object.status === 'CANCELLED')).toBe(true);
      expect(events.some((e) => e.type.startsWith('invoice.') && e.data.object.id === invoiceId && e.data.object.status === 'PENDING')).toBe(true);

      // The invoice can still be paid on the new chain, at the same address.
      await chain.sendToken(usdt, 1, pay.address, units('10', 6));
      await chain.mine(11);
      await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p[1].status === 'COMPLETED');
      expect((await shortState(shop.test, invoiceId)).status).toBe('COMPLETED');
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('cancels a payment a reorg took out while new blocks come faster than the watcher polls (no step without one)', async () => {
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl) } });
    try {
      const shop = await createOrg(server);
      const invoiceId = await createInvoice(shop.test, '8', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId);
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      const snapshot = await chain.test.snapshot();
      await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('8', 6)));
      await chain.mine(1);
      const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
      expect(seen.status).toBe('PENDING');

      // The payment's blocks are replaced by a fork without it, which then grows a block every 40 ms (the
      // watcher polls every 100 ms, as a chain with 2-second blocks outpaces a 4-second poll).
      await chain.test.revert({ id: snapshot });
      await chain.test.setIntervalMining({ interval: 0.04 }); // seconds (viem): 40 ms
      try {
        const [cancelled] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED', 20_000);
        expect(cancelled.id).toBe(seen.id);
        expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');
      } finally {
        await chain.test.setIntervalMining({ interval: 0 });
      }
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('cancels a payment a reorg took out of blocks it read in one step while catching up past its finality depth', async () => {
    const db = await sharedDatabase();
    // Finality six blocks deep; the restarted watcher reads the 22 blocks it missed in one step.
    const env = { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl, { confirmations: 6 }) };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await createOrg(server);
      const invoiceId = await createInvoice(shop.test, '9', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId);
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      await server.stop();

      // While the service is down: twenty blocks, the payment, one more.
      await chain.mine(20);
      const snapshot = await chain.test.snapshot();
      const { blockNumber } = await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('9', 6)));
      await chain.mine(1);
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.key, server.baseUrl);
      const [seen] = await waitForPayments(api, invoiceId, (p) => p.length === 1 && p[0].confirmations === 2);
      expect(seen.status).toBe('PENDING');
      // The blocks read in that step are remembered down to the finality depth, not only its last one. They are
      // written as the step moves its cursor, after it recorded the payment: read once the step has ended.
      await eventually(async () => {
        const remembered = await withClient(db.url, async (c) =>
          (await c.query(`SELECT block_number::text AS n FROM chain_blocks WHERE mode = 'test' AND network = 'ethereum' ORDER BY block_number`)).rows.map((r) =>
            BigInt(r.n),
          ),
        );
        expect(remembered).toContain(blockNumber - 1n);
      });

      // A longer fork replaces the payment's block and the one after it.
      await chain.test.revert({ id: snapshot });
      await chain.mine(4);
      const [cancelled] = await waitForPayments(api, invoiceId, (p) => p[0].status === 'CANCELLED', 20_000);
      expect(cancelled.id).toBe(seen.id);
      // Past the confirmations it would have needed: still cancelled, the invoice not paid.
      await chain.mine(14);
      await new Promise((r) => setTimeout(r, 800));
      expect((await paymentsOf(api, invoiceId)).map((p) => p.status)).toEqual(['CANCELLED']);
      expect((await shortState(api, invoiceId)).status).toBe('PENDING');
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('records every payment exactly once when the service is SIGKILLed while blocks with payments arrive', async () => {
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl, { max_block_range: 3 }) };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await createOrg(server);
      const invoices = await Promise.all(Array.from({ length: 8 }, () => createInvoice(shop.test, '3', 'USDT')));
      const addresses = await Promise.all(invoices.map(async (id) => (await paymentAddress(shop.test, id)).address as string));
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      for (let i = 0; i < addresses.length; i++) {
        await chain.sendToken(usdt, 1 + (i % 5), addresses[i], units('3', 6));
        if (i === 3) {
          await new Promise((r) => setTimeout(r, 150));
          await server.stop('SIGKILL');
        }
      }
      await chain.mine(2);
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.key, server.baseUrl);
      await chain.mine(11);
      for (const id of invoices) {
        const payments = await waitForPayments(api, id, (p) => p.length >= 1 && p.every((x) => x.status === 'COMPLETED'), 30_000);
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

  it('runs one watcher across two instances; when it dies the other takes over within seconds, without duplicates', async () => {
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl) };
    const a = await startServer({ databaseUrl: db.url, env });
    const b = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await createOrg(a);
      await eventually(async () => {
        const heads = [await watchedHead(a), await watchedHead(b)];
        expect(heads.filter((h) => h !== null)).toHaveLength(1);
      });
      if (process.env.TEST_PG_SERVER_URL) {
        // The network's watcher lock is held once, by one session of this database.
        const locks = await withClient(
          db.url,
          async (c) =>
            (
              await c.query(
                `SELECT count(*)::int AS n FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 1
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND objid::bigint = (hashtext('chain_watcher:test:ethereum')::bigint & 4294967295)`,
              )
            ).rows[0].n,
        );
        expect(locks).toBe(1);
      }
      const [holder, standby] = (await watchedHead(a)) !== null ? [a, b] : [b, a];
      const first = await createInvoice(shop.test, '4', 'USDT');
      const second = await createInvoice(shop.test, '5', 'USDT');
      const pa = await paymentAddress(shop.test, first);
      const pb = await paymentAddress(shop.test, second);
      await chain.sendToken(usdt, 1, pa.address, units('4', 6));
      await waitForPayments(shop.test, first, (p) => p.length === 1);
      expect(await watchedHead(standby)).toBeNull();

      await holder.stop('SIGKILL');
      const killedAt = Date.now();
      await chain.sendToken(usdt, 2, pb.address, units('5', 6));
      const survivor = new Api(shop.key, standby.baseUrl);
      await waitForPayments(survivor, second, (p) => p.length === 1, 20_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      expect(await watchedHead(standby)).not.toBeNull();
      await chain.mine(11);
      for (const id of [first, second]) {
        const payments = await waitForPayments(survivor, id, (p) => p.length >= 1 && p[0].status === 'COMPLETED');
        expect(payments).toHaveLength(1);
      }
    } finally {
      await a.stop();
      await b.stop();
      await db.drop();
    }
  });

  it('finds payments by looking recipients up when more than 500 addresses are watched', async () => {
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl) } });
    try {
      const shop = await createOrg(server);
      const token = await createInvoice(shop.test, '2', 'USDT');
      const coin = await createInvoice(shop.test, '2', 'USDT');
      const tokenAddress = (await paymentAddress(shop.test, token)).address;
      const coinAddress = (await paymentAddress(shop.test, coin, 'prov_ethereum_ethereum')).address;
      const [{ id: walletId }] = expectSuccess(await shop.test.get('/wallets')).items;
      await withClient(db.url, (c) =>
        c.query(
          `INSERT INTO deposit_addresses (wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at)
         SELECT $1, 1000 + i, $2, 'test', 'invoice_elsewhere_' || i, 'prov_ethereum_usdt', 'ethereum', '0x' || lpad(to_hex(i), 40, '0'), NULL, now()
           FROM generate_series(1, 800) AS i`,
          [walletId, shop.id],
        ),
      );
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());
      await chain.sendToken(usdt, 1, tokenAddress, units('2', 6));
      await chain.sendNative(2, coinAddress, 10n ** 15n);
      // Traffic to addresses that are not ours is passed over.
      await chain.sendToken(usdt, 1, '0x000000000000000000000000000000000000dEaD', units('1', 6));
      const [t] = await waitForPayments(shop.test, token, (p) => p.length === 1);
      expect(t).toMatchObject({ provider_id: 'prov_ethereum_usdt', price: new D('2').toFixed(30) });
      const [n] = await waitForPayments(shop.test, coin, (p) => p.length === 1);
      expect(n).toMatchObject({ provider_id: 'prov_ethereum_ethereum', price: new D('0.001').toFixed(30) });
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('retries while the RPC node is unreachable, counts the faults, and catches up in bounded batches afterwards', async () => {
    const proxy = new RpcProxy(await freePort(), chain.port);
    await proxy.start();
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(proxy.url, { max_block_range: 4 }) } });
    try {
      const shop = await createOrg(server);
      const invoices = await Promise.all([createInvoice(shop.test, '2', 'USDT'), createInvoice(shop.test, '3', 'USDT')]);
      const addresses = await Promise.all(invoices.map(async (id) => (await paymentAddress(shop.test, id)).address as string));
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());

      await proxy.stop();
      const errorsBefore = await rpcErrors(server);
      await chain.sendToken(usdt, 1, addresses[0], units('2', 6));
      await chain.mine(20);
      await chain.sendToken(usdt, 1, addresses[1], units('3', 6));
      await chain.mine(5);
      await eventually(async () => expect(await rpcErrors(server)).toBeGreaterThan(errorsBefore + 1));
      expect((await paymentsOf(shop.test, invoices[0])).length).toBe(0);
      expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);

      await proxy.start();
      await chain.mine(10);
      for (const [i, id] of invoices.entries()) {
        const [p] = await waitForPayments(shop.test, id, (ps) => ps.length === 1 && ps[0].status === 'COMPLETED', 30_000);
        expect(p.price).toBe(new D(i === 0 ? '2' : '3').toFixed(30));
      }
      await eventually(async () => {
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        expect(/^chain_lag_blocks\{network="ethereum",mode="test"\} (\d+)$/m.exec(text)?.[1]).toBe('0');
      });
      expect(server.output()).toContain('chain_rpc_error');
    } finally {
      await server.stop();
      await proxy.stop();
      await db.drop();
    }
  });

  it("records a payment made inside an address's window that the watcher, behind its chain, reads only after the window closed", async () => {
    const proxy = new RpcProxy(await freePort(), chain.port);
    await proxy.start();
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(proxy.url) } });
    try {
      const shop = await createOrg(server);
      const invoiceId = await createInvoice(shop.test, '4', 'USDT');
      const { address } = await paymentAddress(shop.test, invoiceId);
      await eventually(async () => expect(await watchedHead(server)).not.toBeNull());

      // The node is out of reach: the payment is mined meanwhile, then the address's window closes.
      await proxy.stop();
      await chain.receipt(await chain.sendToken(usdt, 1, address, units('4', 6)));
      const closed = await withClient(db.url, (c) =>
        c.query(`UPDATE deposit_addresses SET watch_until = clock_timestamp() + interval '1 second' WHERE invoice_id = $1`, [invoiceId]),
      );
      expect(closed.rowCount).toBe(1);
      await new Promise((r) => setTimeout(r, 1500));

      // Back in reach: the block is read after the window closed, and the payment in it still counts.
      await proxy.start();
      await chain.mine(2);
      const [payment] = await waitForPayments(shop.test, invoiceId, (ps) => ps.length === 1, 30_000);
      expect(payment.price).toBe(new D('4').toFixed(30));
      // The cursor keeps the time stamped on its block: what the next scan's window is judged by.
      await eventually(async () => {
        const [cursor] = await withClient(
          db.url,
          async (c) => (await c.query(`SELECT block_number::text, block_time FROM chain_cursors WHERE network = 'ethereum'`)).rows,
        );
        const stamped = await chain.blockTime(BigInt(cursor.block_number));
        expect(cursor.block_time).toEqual(stamped);
      });
    } finally {
      await server.stop();
      await proxy.stop();
      await db.drop();
    }
  });
});
