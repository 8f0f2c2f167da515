import { Webhook } from 'standardwebhooks';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, sharedDatabase, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN, errorLines, linesWith, RunningServer, startServer } from '../../support/server';
import { withClient } from '../../support/pg';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, D, r30, shortState } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, units, waitForPayments } from './chain-helpers';
import { startTron, stopTron, tronChainsFile, tronMerchant, tronToHex, TronSetup } from './tron-helpers';

/** What eth_getLogs answers for one block and contract. */
async function logsOf(url: string, block: bigint, contract: string): Promise<unknown[]> {
  const at = `0x${block.toString(16)}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: at, toBlock: at, address: [contract] }] }),
  });
  return ((await response.json()) as { result: unknown[] }).result;
}

const WATCHER_ENV = { CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100' };
const USDT = 'prov_tron_usdt';
const TRX = 'prov_tron_tron';

describe('the Tron rail against a java-tron-shaped JSON-RPC (a proxy in front of Hardhat)', () => {
  let setup: TronSetup;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // The solidified block stays 3 below the head: a transfer is final 3 blocks on, far before the 19 confirmations TRON asks by count.
    // This node has eth_getBlockReceipts; the one of the restart tests below does not (-32601).
    setup = await startTron({ finalizedLag: 3, blockReceipts: true });
    service = await startIsolatedService({ CHAINS_FILE: setup.chainsFile, ...WATCHER_ENV });
    receiver = await WebhookReceiver.start();
  }, 120_000);
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await stopTron(setup);
  });

  it('takes an exact USDT (TRC-20) payment: a T address, no URI; PENDING when seen, COMPLETED once the finalized block covers it, signed webhooks', async () => {
    const { chain, usdt, usdtTron } = setup;
    const shop = await tronMerchant(service);
    const endpoint = expectSuccess(
      await shop.test.post('/webhooks', { url: receiver.url(`/tron-${shop.id}`), event_types: ['payment.created', 'payment.updated', 'invoice.completed'] }),
      201,
    );
    const invoiceId = await createInvoice(shop.test, '25.494902', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId, USDT);
    expect(pay).toMatchObject({ provider_id: USDT, address: shop.at(0), amount: r30('25.494902'), decimals: 6, uri: null, contract_address: usdtTron });
    expect(pay.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);

    // The payer sends to the address's 20 bytes (what a Tron wallet puts on chain for that T address).
    const hash = await chain.sendToken(usdt, 1, tronToHex(pay.address), units('25.494902', 6));
    const receipt = await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({
      provider_id: USDT,
      currency: 'USDT',
      price: r30('25.494902'),
      status: 'PENDING',
      idempotency_key: `tron:${hash}:${receipt.logs[0].logIndex}`,
      required_confirmations: 19,
    });
    expect(seen.confirmations).toBeLessThan(19);
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    await chain.mine(3);
    const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    // Final by the node's solidified block after 4 blocks, counted as its requirement.
    expect(done.confirmations).toBe(19);
    expect(await chain.blockNumber()).toBe(receipt.blockNumber + 3n);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const path = `/tron-${shop.id}`;
    const hooks = await receiver.waitFor((all) => all.some((w) => w.path === path && w.json.type === 'invoice.completed'));
    const mine = hooks.filter((w) => w.path === path);
    expect(mine.map((w) => w.json.type)).toContain('payment.created');
    for (const hook of mine) expect(() => new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    const completed = mine.find((w) => w.json.type === 'payment.updated' && w.json.data.object.status === 'COMPLETED');
    expect(completed!.json.data.object).toMatchObject({ id: done.id, confirmations: 19 });
  });

  it('takes TRX sent straight to the address (the transaction value, 6 decimals)', async () => {
    const { chain } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '30');
    const pay = await paymentAddress(shop.test, invoiceId, TRX);
    expect(pay).toMatchObject({ provider_id: TRX, currency: 'TRON', address: shop.at(0), decimals: 6, uri: null, contract_address: null });
    expect(new D(pay.amount).decimalPlaces()).toBeLessThanOrEqual(6);
    const hash = await chain.sendNative(2, tronToHex(pay.address), units(new D(pay.amount).toFixed(6), 6));
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ provider_id: TRX, currency: 'TRON', price: pay.amount, status: 'PENDING', idempotency_key: `tron:${hash}:native` });
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('does not take a TRC-10 token sent to a TRX address for TRX (the JSON-RPC shows both alike; the HTTP API tells them apart)', async () => {
    const { chain, proxy } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '20');
    const pay = await paymentAddress(shop.test, invoiceId, TRX);
    const sun = units(new D(pay.amount).toFixed(6), 6);
    const asked = proxy.count('gettransactionbyid');
    // A "TRC-10" transfer of the very amount, mined first: same `to` and `value` on the JSON-RPC.
    await chain.test.setAutomine(false);
    try {
      const fake = await chain.sendNative(4, tronToHex(pay.address), sun);
      proxy.options.trc10.add(fake.toLowerCase());
      await chain.mine(1);
    } finally {
      await chain.test.setAutomine(true);
    }
    const real = await chain.sendNative(3, tronToHex(pay.address), sun);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.idempotency_key).toBe(`tron:${real}:native`);
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(await paymentsOf(shop.test, invoiceId)).toHaveLength(1);
    // Paid exactly once over, not twice: the token was never counted.
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(proxy.count('gettransactionbyid')).toBeGreaterThanOrEqual(asked + 2);
  });

  /** `junk` TRC-10 transfers (the same `to` and `value` shape as TRX on the JSON-RPC) and then a TRX payment of `sun` to `address`, in one block; the payment's hash. */
  async function junkAndPaymentInOneBlock(address: string, sun: bigint, junk: number): Promise<string> {
    const { chain, proxy } = setup;
    await chain.test.setAutomine(false);
    try {
      for (let i = 1; i <= junk; i++) proxy.options.trc10.add((await chain.sendNative(4, tronToHex(address), BigInt(i))).toLowerCase());
      const real = await chain.sendNative(3, tronToHex(address), sun);
      await chain.mine(1);
      return real;
    } finally {
      await chain.test.setAutomine(true);
    }
  }

  it('reads a block holding many TRX-looking transfers to watched addresses in one call to the HTTP API, not one call each (TRC-10 junk sent in bulk)', async () => {
    const { chain, proxy } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '20');
    const pay = await paymentAddress(shop.test, invoiceId, TRX);
    const sun = units(new D(pay.amount).toFixed(6), 6);
    const byTransaction = proxy.count('gettransactionbyid');
    const byBlock = proxy.count('getblockbynum');
    // Twelve TRC-10 transfers and the payment, in one block.
    const real = await junkAndPaymentInOneBlock(pay.address, sun, 12);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.idempotency_key).toBe(`tron:${real}:native`);
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(await paymentsOf(shop.test, invoiceId)).toHaveLength(1);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    // The block was read whole (once, or again with its range); at most the few single reads a check of the payment makes.
    expect(proxy.count('gettransactionbyid') - byTransaction).toBeLessThanOrEqual(3);
    expect(proxy.count('getblockbynum') - byBlock).toBeGreaterThanOrEqual(1);
  });

  it('reads such a block one transaction at a time when the HTTP API lacks getblockbynum, and still takes the payment', async () => {
    const { proxy } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '20');
    const pay = await paymentAddress(shop.test, invoiceId, TRX);
    const sun = units(new D(pay.amount).toFixed(6), 6);
    const byTransaction = proxy.count('gettransactionbyid');
    proxy.options.blockByNum = false;
    const real = await junkAndPaymentInOneBlock(pay.address, sun, 5);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.idempotency_key).toBe(`tron:${real}:native`);
    expect(proxy.count('getblockbynum refused')).toBeGreaterThanOrEqual(1);
    expect(proxy.count('gettransactionbyid') - byTransaction).toBeGreaterThanOrEqual(6);
  });

  it('takes a partial payment, then the rest the address now asks; an overpayment is PAID_OVER', async () => {
    const { chain, usdt } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '100', 'USDT');
    const first = await paymentAddress(shop.test, invoiceId, USDT);
    await chain.sendToken(usdt, 1, tronToHex(first.address), units('40', 6));
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const rest = await paymentAddress(shop.test, invoiceId, USDT);
    expect(rest).toMatchObject({ address: first.address, amount: r30('60') });
    await chain.sendToken(usdt, 1, tronToHex(rest.address), units('60', 6));
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const over = await createInvoice(shop.test, '10', 'USDT');
    const overPay = await paymentAddress(shop.test, over, USDT);
    expect(overPay.address).toBe(shop.at(1));
    await chain.sendToken(usdt, 2, tronToHex(overPay.address), units('15', 6));
    await chain.mine(3);
    await waitForPayments(shop.test, over, (p) => p[0]?.status === 'COMPLETED');
    expect(await shortState(shop.test, over)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
  });

  it("finds a token payment the node's log index left out, from the receipts of the block's calls to the token", async () => {
    const { chain, usdt, proxy } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '7', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId, USDT);
    const next = (await chain.blockNumber()) + 1n;
    proxy.options.unindexed.add(next);
    const before = proxy.count('eth_getBlockReceipts');
    const hash = await chain.sendToken(usdt, 3, tronToHex(pay.address), units('7', 6));
    expect((await chain.receipt(hash)).blockNumber).toBe(next);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ provider_id: USDT, price: r30('7'), idempotency_key: expect.stringMatching(new RegExp(`^tron:${hash}:\\d+$`)) });
    // The node's log answer for that block is empty; the block's receipts were read instead.
    expect(await logsOf(proxy.url, next, usdt)).toEqual([]);
    expect(proxy.count('eth_getBlockReceipts')).toBeGreaterThan(before);
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
  });

  it('keeps one payment when a reorg replaces its block and the same transaction is mined again later', async () => {
    const { chain, usdt } = setup;
    const shop = await tronMerchant(service);
    const invoiceId = await createInvoice(shop.test, '10', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId, USDT);
    const raw = await chain.signTokenTransfer(usdt, 5, tronToHex(pay.address), units('10', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.status).toBe('PENDING');

    // Another block takes the payment's height (a new hash there), and the transaction comes back one block later.
    await chain.test.revert({ id: snapshot });
    await chain.mine(1);
    expect(await chain.sendRaw(raw)).toBe(hash);
    const again = await chain.receipt(hash);
    expect(again.blockNumber).toBe(first.blockNumber + 1n);
    await eventually(async () => expect(linesWith(service.server, '"event":"chain_reorg"').some((l) => l.includes('"network":"tron"'))).toBe(true));
    await chain.mine(3);
    const payments = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(payments[0]).toMatchObject({ id: seen.id, idempotency_key: seen.idempotency_key });
    expect((await shortState(shop.test, invoiceId)).status).toBe('COMPLETED');
  });

  it("never asks the node for 'pending', and logs no error", () => {
    expect(setup.proxy.count('pending')).toBe(0);
    expect(setup.proxy.count('eth_getLogs')).toBeGreaterThan(0);
    expect(errorLines(service.server)).toEqual([]);
  });
});

describe('the Tron watcher across a restart, and against a node of another chain', () => {
  let setup: TronSetup;
  beforeAll(async () => {
    setup = await startTron({ finalizedLag: 3 });
  }, 120_000);
  afterAll(async () => stopTron(setup));

  async function createOrg(server: RunningServer) {
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Tron shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const { organization_id, test_key, live_key } = res.body.data;
    return { id: organization_id as string, test: new Api(test_key, server.baseUrl), live: new Api(live_key, server.baseUrl) };
  }
  const asService = (server: RunningServer): IsolatedService => ({ server, createOrg: () => createOrg(server) }) as unknown as IsolatedService;
  /** The test-mode Tron cursor's block in the database, once the watcher has made it. */
  const tronCursor = async (url: string) =>
    (await withClient(url, (c) => c.query(`SELECT block_number::text AS n FROM chain_cursors WHERE mode = 'test' AND network = 'tron'`))).rows[0]?.n as
      string | undefined;

  it('records a payment made while the service was down from its cursor, once; its log left out of the index, read from per-transaction receipts', async () => {
    const { chain, usdt, proxy } = setup;
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: setup.chainsFile };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await tronMerchant(asService(server));
      const invoiceId = await createInvoice(shop.test, '12', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId, USDT);
      const cursor = () => tronCursor(db.url);
      await eventually(async () => expect(await cursor()).toBeDefined());
      await server.stop();
      const stoppedAt = BigInt((await cursor())!);
      // Paid while no watcher runs, in a block the node's log index leaves out.
      const next = (await chain.blockNumber()) + 1n;
      proxy.options.unindexed.add(next);
      const [perTx, perBlock] = [proxy.count('eth_getTransactionReceipt'), proxy.count('eth_getBlockReceipts')];
      const hash = await chain.sendToken(usdt, 4, tronToHex(pay.address), units('12', 6));
      expect((await chain.receipt(hash)).blockNumber).toBe(next);
      await chain.mine(5);
      expect(next).toBeGreaterThan(stoppedAt);

      // Started again, it goes on from its cursor (without one it would start at the head, past the payment).
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      const payments = await waitForPayments(api, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
      expect(payments[0].idempotency_key).toMatch(new RegExp(`^tron:${hash}:\\d+$`));
      // This node has no eth_getBlockReceipts: asked once (-32601), then one receipt per transaction.
      expect(proxy.count('eth_getBlockReceipts')).toBe(perBlock + 1);
      expect(proxy.count('eth_getTransactionReceipt')).toBeGreaterThan(perTx);
      expect(await paymentsOf(api, invoiceId)).toHaveLength(1);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('reads a range whose logs the node refuses in one answer (java-tron: more than 10,000) in smaller ranges, and records the payment in it', async () => {
    const { chain, usdt, proxy } = setup;
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: setup.chainsFile };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await tronMerchant(asService(server));
      const invoiceId = await createInvoice(shop.test, '9', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId, USDT);
      const cursor = () => tronCursor(db.url);
      await eventually(async () => expect(await cursor()).toBeDefined());
      await server.stop();
      // While no watcher runs: other people's USDT transfers around the payment, each in a block of its own.
      const stranger = `0x${'11'.repeat(20)}`;
      for (let i = 0; i < 3; i++) await chain.receipt(await chain.sendToken(usdt, 5, stranger, units('1', 6)));
      const hash = await chain.sendToken(usdt, 4, tronToHex(pay.address), units('9', 6));
      await chain.receipt(hash);
      for (let i = 0; i < 3; i++) await chain.receipt(await chain.sendToken(usdt, 5, stranger, units('1', 6)));
      await chain.mine(5);
      // A node that answers at most one log a query: the whole range is refused for good.
      proxy.options.maxLogResults = 1;
      const refused = proxy.count('tooManyLogs');
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      const payments = await waitForPayments(api, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 40_000);
      expect(payments[0].idempotency_key).toMatch(new RegExp(`^tron:${hash}:\\d+$`));
      expect(proxy.count('tooManyLogs')).toBeGreaterThan(refused);
      expect(linesWith(server, 'chain_range_narrowed').length).toBeGreaterThan(0);
    } finally {
      proxy.options.maxLogResults = Number.POSITIVE_INFINITY;
      await server.stop();
      await db.drop();
    }
  }, 90_000);

  it('counts a transfer read again (a range repeated after a crash) only up to the block the node calls final: it does not complete above it', async () => {
    const { chain, usdt, proxy } = setup;
    // The node's solidified block far behind: nothing in this test is final.
    proxy.options.finalizedLag = 1000;
    const db = await sharedDatabase();
    const env = { ...WATCHER_ENV, CHAINS_FILE: setup.chainsFile };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await tronMerchant(asService(server));
      const invoiceId = await createInvoice(shop.test, '7', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId, USDT);
      const hash = await chain.sendToken(usdt, 4, tronToHex(pay.address), units('7', 6));
      const block = (await chain.receipt(hash)).blockNumber;
      // More blocks than the 19 confirmations TRON asks by count: counted up to 18, as none is final.
      await chain.mine(25);
      const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations === 18, 30_000);
      expect(seen.status).toBe('PENDING');
      const head = await chain.blockNumber();
      await eventually(async () => expect(BigInt((await tronCursor(db.url)) ?? '-1')).toBeGreaterThanOrEqual(head));
      await server.stop();

      // As after a crash before the cursor's commit: the range holding the payment is read again.
      await withClient(db.url, (c) =>
        c.query(
          `UPDATE chain_cursors SET block_number = b.block_number, block_hash = b.block_hash
             FROM chain_blocks b
            WHERE chain_cursors.mode = 'test' AND chain_cursors.network = 'tron'
              AND b.mode = 'test' AND b.network = 'tron' AND b.block_number = $1`,
          [String(block - 1n)],
        ),
      );
      expect(await tronCursor(db.url)).toBe(String(block - 1n));
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      await eventually(async () => expect(BigInt((await tronCursor(db.url)) ?? '-1')).toBeGreaterThanOrEqual(head), 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const after = await paymentsOf(api, invoiceId);
      expect(after.map((p) => [p.id, p.status, p.confirmations])).toEqual([[seen.id, 'PENDING', 18]]);
      expect((await shortState(api, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');
    } finally {
      proxy.options.finalizedLag = 3;
      await server.stop();
      await db.drop();
    }
  }, 90_000);

  it('with finality "confirmations", completes a payment at the section\'s confirmations, whatever the node calls finalized', async () => {
    const { chain, usdt, proxy } = setup;
    // The node's solidified block far behind: it never covers the payment in this test.
    proxy.options.finalizedLag = 1000;
    const service = await startIsolatedService({
      ...WATCHER_ENV,
      CHAINS_FILE: tronChainsFile(proxy, setup.usdtTron, { finality: 'confirmations', confirmations: 5 }),
    });
    try {
      const shop = await tronMerchant(service);
      const invoiceId = await createInvoice(shop.test, '8', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId, USDT);
      await chain.receipt(await chain.sendToken(usdt, 6, tronToHex(pay.address), units('8', 6)));
      await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'PENDING');
      await chain.mine(3);
      const [four] = await waitForPayments(shop.test, invoiceId, (p) => p[0].confirmations === 4);
      expect(four.status).toBe('PENDING');
      await chain.mine(1);
      const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
      expect(done.confirmations).toBe(19);
    } finally {
      proxy.options.finalizedLag = 3;
      await service.stop();
    }
  });

  it('with finality "confirmations" above the provider\'s requirement, completes only at the section\'s confirmations', async () => {
    const { chain, usdt, proxy } = setup;
    proxy.options.finalizedLag = 1000;
    // The section asks more than the provider's 19: the section's count decides (decisions §23).
    const service = await startIsolatedService({
      ...WATCHER_ENV,
      CHAINS_FILE: tronChainsFile(proxy, setup.usdtTron, { finality: 'confirmations', confirmations: 25 }),
    });
    try {
      const shop = await tronMerchant(service);
      const invoiceId = await createInvoice(shop.test, '6', 'USDT');
      const pay = await paymentAddress(shop.test, invoiceId, USDT);
      await chain.receipt(await chain.sendToken(usdt, 6, tronToHex(pay.address), units('6', 6)));
      await chain.mine(21);
      // 22 blocks bury it, past the provider's 19: still not final.
      const [buried] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 18);
      await new Promise((r) => setTimeout(r, 500));
      expect((await paymentsOf(shop.test, invoiceId))[0]).toMatchObject({ id: buried.id, status: 'PENDING', confirmations: 18 });
      await chain.mine(3);
      const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
      expect(done.confirmations).toBe(25);
    } finally {
      proxy.options.finalizedLag = 3;
      await service.stop();
    }
  });

  it('refuses a node whose chain id is not the configured one: nothing watched, no address handed out', async () => {
    const service = await startIsolatedService({
      ...WATCHER_ENV,
      CHAIN_ID_CHECK_SECONDS: '1',
      CHAINS_FILE: tronChainsFile(setup.proxy, setup.usdtTron, { chain_id: 728126428 }),
    });
    try {
      const mismatches = () => linesWith(service.server, '"event":"chain_id_mismatch"');
      await eventually(async () => expect(mismatches().length).toBeGreaterThan(0));
      expect(JSON.parse(mismatches()[0])).toMatchObject({ network: 'tron', mode: 'test', expected_chain: '728126428', actual_chain: '3448148188' });
      const shop = await tronMerchant(service);
      const invoiceId = await createInvoice(shop.test, '10', 'USDT');
      expectError(await shop.test.post(`/invoices/${invoiceId}/payment_address`, { provider_id: USDT }), 400, {
        code: 'rail_unavailable',
        field: 'provider_id',
      });
      expect(await paymentsOf(shop.test, invoiceId)).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
