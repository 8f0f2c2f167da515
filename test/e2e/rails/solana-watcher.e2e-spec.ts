import { Webhook } from 'standardwebhooks';
import { fundedWallet, solTransfer, tokenTransfer } from '../../chain/solana-wallet';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { type IsolatedService, sharedDatabase } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { startServer } from '../../support/server';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, D, r30, shortState } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, units, waitForPayments } from './chain-helpers';
import {
  asService,
  SOLANA_WATCHER_ENV,
  solanaChainsFile,
  solanaCursor,
  solanaMerchant,
  solanaPayer,
  type SolanaService,
  type SolanaSetup,
  startSolana,
  startSolanaService,
} from './solana-helpers';

const SOL = 'prov_solana_solana';
const USDC = 'prov_solana_usdc';
const USDT = 'prov_solana_usdt';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the Solana rail against a litesvm node in Solana JSON-RPC shapes', () => {
  let setup: SolanaSetup;
  let service: IsolatedService;
  let stop: SolanaService['stop'] | undefined;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // Confirmed at once, finalized 4 slots later: a payment is PENDING when it lands and COMPLETED 4 slots on.
    ({ setup, service, stop } = await startSolanaService({ confirmedLag: 0, finalizedLag: 4 }, SOLANA_WATCHER_ENV));
    receiver = await WebhookReceiver.start();
  }, 120_000);
  afterAll(async () => {
    await receiver?.stop();
    await stop?.();
  });

  it('takes an exact SOL payment by Solana Pay: the wallet with a reference, PENDING once confirmed, COMPLETED once finalized, signed webhooks', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const endpoint = expectSuccess(
      await shop.test.post('/webhooks', { url: receiver.url(`/sol-${shop.id}`), event_types: ['payment.created', 'payment.updated', 'invoice.completed'] }),
      201,
    );
    const invoiceId = await createInvoice(shop.test, '1.5', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    expect(pay).toMatchObject({
      provider_id: SOL,
      currency: 'SOLANA',
      address: shop.wallet,
      amount: r30('1.5'),
      decimals: 9,
      chain_id: null,
      contract_address: null,
    });
    expect(pay.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(pay.uri).toBe(`solana:${shop.wallet}?amount=1.5&reference=${pay.reference}&message=Invoice%20${invoiceId}`);
    // The same invoice and provider get the same reference again; another invoice a new one.
    expect((await paymentAddress(shop.test, invoiceId, SOL)).reference).toBe(pay.reference);
    const other = await paymentAddress(shop.test, await createInvoice(shop.test, '1', 'SOLANA'), SOL);
    expect(other).toMatchObject({ address: shop.wallet });
    expect(other.reference).not.toBe(pay.reference);

    const payer = await fundedWallet(bed);
    const signature = bed.submit(await solTransfer(bed, payer, pay.address, 1_500_000_000n, [pay.reference]));
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({
      provider_id: SOL,
      currency: 'SOLANA',
      price: r30('1.5'),
      status: 'PENDING',
      idempotency_key: `solana:${signature}:${pay.reference}`,
    });
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    bed.advance(4);
    const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(done.id).toBe(seen.id);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const path = `/sol-${shop.id}`;
    const hooks = await receiver.waitFor((all) => all.some((w) => w.path === path && w.json.type === 'invoice.completed'));
    const mine = hooks.filter((w) => w.path === path);
    expect(mine.map((w) => w.json.type)).toEqual(expect.arrayContaining(['payment.created', 'payment.updated', 'invoice.completed']));
    for (const hook of mine) expect(() => new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    // Slots carry no time the watcher reads: at the head the cursor keeps when that step began, never 1970.
    const [cursor] = await withClient(service.databaseUrl!, async (c) => (await c.query(`SELECT block_time FROM chain_cursors WHERE network = 'solana'`)).rows);
    expect(cursor.block_time).toBeInstanceOf(Date);
    expect(Math.abs((cursor.block_time as Date).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('takes USDC partly, then the rest the same reference asks (the associated token account created by the payment)', async () => {
    const { bed, usdc } = setup;
    const shop = await solanaMerchant(service);
    const payer = await solanaPayer(bed, { mint: usdc, amount: '1000' });
    const invoiceId = await createInvoice(shop.test, '100', 'USDC');
    const first = await paymentAddress(shop.test, invoiceId, USDC);
    expect(first).toMatchObject({ address: shop.wallet, amount: r30('100'), decimals: 6, contract_address: usdc });
    expect(first.uri).toBe(`solana:${shop.wallet}?amount=100&spl-token=${usdc}&reference=${first.reference}&message=Invoice%20${invoiceId}`);
    bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('40.25', 6), [first.reference]));
    bed.advance(4);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const rest = await paymentAddress(shop.test, invoiceId, USDC);
    expect(rest).toMatchObject({ address: shop.wallet, reference: first.reference, amount: r30('59.75') });
    const second = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('59.75', 6), [rest.reference]));
    bed.advance(4);
    const payments = await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    expect(payments.map((p) => p.price)).toEqual([r30('40.25'), r30('59.75')]);
    expect(payments[1].idempotency_key).toBe(`solana:${second}:${rest.reference}`);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('takes USDT over the amount: PAID_OVER; a payment without our reference, or to another wallet, is not counted', async () => {
    const { bed, usdt } = setup;
    const shop = await solanaMerchant(service);
    const stranger = await solanaMerchant(service);
    const payer = await solanaPayer(bed, { mint: usdt, amount: '1000' });
    const invoiceId = await createInvoice(shop.test, '10', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId, USDT);
    // Not counted: no reference; our reference but paid to another merchant's wallet.
    bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdt, units('10', 6)));
    bed.submit(await tokenTransfer(bed, payer, stranger.wallet, usdt, units('10', 6), [pay.reference]));
    const over = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdt, units('12.5', 6), [pay.reference]));
    bed.advance(4);
    const [done] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(done).toMatchObject({ price: r30('12.5'), idempotency_key: `solana:${over}:${pay.reference}` });
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
    await pause(500);
    expect(await paymentsOf(shop.test, invoiceId)).toHaveLength(1);
    // Neither is lost: each is an unmatched transfer of the wallet's organization, without an invoice.
    const [loose] = expectSuccess(await shop.test.get('/rails/unmatched')).items;
    expect(loose).toMatchObject({ invoice_id: null, reason_code: 'no_known_reference', provider_id: USDT, amount: r30('10'), address: shop.wallet });
    const [elsewhere] = expectSuccess(await stranger.test.get('/rails/unmatched')).items;
    expect(elsewhere).toMatchObject({ invoice_id: null, reason_code: 'no_known_reference', provider_id: USDT, amount: r30('10'), address: stranger.wallet });
  });

  it('a transaction the node lists but cannot return yet is read again, not passed over: the payment is recorded once', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '3', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const signature = bed.submit(await solTransfer(bed, payer, pay.address, 3_000_000_000n, [pay.reference]));
    // getSignaturesForAddress lists it; getTransaction answers null three times (an RPC node behind a load balancer).
    bed.withholdTransaction(signature, 3);
    bed.advance(2);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ status: 'PENDING', idempotency_key: `solana:${signature}:${pay.reference}`, price: r30('3') });
    bed.advance(4);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('a payment made while the node listing signatures lags behind the head is recorded once that node catches up, never passed over', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '4', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const refusedBefore = bed.refusedListings;
    // Behind a load balancer: getSlot is answered at the head, getSignaturesForAddress by an instance 3 slots
    // behind, which has not reached the payment's slot yet.
    bed.options.listingLag = 3;
    try {
      const signature = bed.submit(await solTransfer(bed, payer, pay.address as string, 4_000_000_000n, [pay.reference as string]));
      // Three steps begin after the payment landed (each asks the confirmed and the finalized slot first), so at
      // least two ran to their end against the lagging instance.
      const slotsAsked = bed.calls.get('getSlot') ?? 0;
      await eventually(async () => {
        if ((bed.calls.get('getSlot') ?? 0) < slotsAsked + 6) throw new Error('the watcher has not stepped three times yet');
      }, 15_000);
      expect(await paymentsOf(shop.test, invoiceId)).toEqual([]);

      bed.options.listingLag = 0;
      const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
      expect(seen).toMatchObject({ status: 'PENDING', idempotency_key: `solana:${signature}:${pay.reference}`, price: r30('4') });
      // The lagging instance refused the watcher's listings (minContextSlot) rather than answering them short.
      expect(bed.refusedListings).toBeGreaterThan(refusedBefore);
      bed.advance(4);
      await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
      expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    } finally {
      bed.options.listingLag = 0;
    }
  });

  it('a transaction seen only at processed and then dropped never becomes a payment; the same payment landing later does', async () => {
    const { bed } = setup;
    const shop = await solanaMerchant(service);
    const invoiceId = await createInvoice(shop.test, '2', 'SOLANA');
    const pay = await paymentAddress(shop.test, invoiceId, SOL);
    const payer = await fundedWallet(bed);
    const dropped = bed.submit(await solTransfer(bed, payer, pay.address, 2_000_000_000n, [pay.reference]), { hold: true });
    bed.advance(6);
    await pause(800);
    expect(await paymentsOf(shop.test, invoiceId)).toEqual([]);
    bed.drop(dropped);
    bed.advance(2);
    await pause(500);
    expect(await paymentsOf(shop.test, invoiceId)).toEqual([]);
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');

    const held = bed.submit(await solTransfer(bed, payer, pay.address, 2_000_000_000n, [pay.reference]), { hold: true });
    bed.land(held);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ status: 'PENDING', idempotency_key: `solana:${held}:${pay.reference}`, price: new D('2').toFixed(30) });
    bed.advance(4);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
  });
});

describe('the Solana watcher across a restart', () => {
  let setup: SolanaSetup;
  beforeAll(async () => {
    setup = await startSolana({ finalizedLag: 2 });
  }, 120_000);
  afterAll(async () => setup?.bed.stop());

  it('records payments made while the service was down from its slot cursor, once each, many slots and signatures later', async () => {
    const { bed, usdc } = setup;
    const db = await sharedDatabase();
    const env = { ...SOLANA_WATCHER_ENV, CHAINS_FILE: setup.chainsFile };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await solanaMerchant(asService(server));
      const invoiceId = await createInvoice(shop.test, '12', 'USDC');
      const pay = await paymentAddress(shop.test, invoiceId, USDC);
      const cursor = () => solanaCursor(db.url);
      await eventually(async () => expect(await cursor()).toBeDefined());
      await server.stop();
      const stoppedAt = BigInt((await cursor())!);

      // While no watcher runs: the payment in two parts, and other traffic to the wallet around them.
      const payer = await solanaPayer(bed, { mint: usdc, amount: '100' });
      const first = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('5', 6), [pay.reference]));
      for (let i = 0; i < 3; i++) bed.submit(await solTransfer(bed, payer, shop.wallet, 1000n));
      bed.advance(50);
      const second = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('7', 6), [pay.reference]));
      bed.advance(5);
      expect(BigInt(bed.slot('confirmed'))).toBeGreaterThan(stoppedAt + 50n);

      // Started again, it goes on from its cursor (without one it would start at the newest slot, past both).
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      const payments = await waitForPayments(api, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
      expect(payments.map((p) => p.idempotency_key).sort()).toEqual([`solana:${first}:${pay.reference}`, `solana:${second}:${pay.reference}`].sort());
      expect(await shortState(api, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it("records a payment made inside its reference's window when the service was down longer than the time margin (slots carry no time)", async () => {
    const { bed, usdc } = setup;
    const db = await sharedDatabase();
    // Four slots a step, so the restarted watcher needs many steps to reach the payment.
    const env = { ...SOLANA_WATCHER_ENV, CHAINS_FILE: solanaChainsFile(setup, { max_block_range: 4 }) };
    let server = await startServer({ databaseUrl: db.url, env });
    try {
      const shop = await solanaMerchant(asService(server));
      const invoiceId = await createInvoice(shop.test, '6', 'USDC');
      const pay = await paymentAddress(shop.test, invoiceId, USDC);
      const cursorTime = async () =>
        (await withClient(db.url, (c) => c.query(`SELECT block_time FROM chain_cursors WHERE mode = 'test' AND network = 'solana'`))).rows[0]?.block_time as
          Date | null | undefined;
      // At the head, the cursor keeps the time the step that reached it began: a slot has no stamped time.
      await eventually(async () => {
        const kept = await cursorTime();
        expect(kept).toBeInstanceOf(Date);
        expect(Math.abs(kept!.getTime() - Date.now())).toBeLessThan(60_000);
      });
      await server.stop();

      // Five hours down, compressed: the watcher was last at the head five hours ago, the reference's window
      // closed three hours ago, both more than the two hours a block's time may be off.
      await withClient(db.url, async (c) => {
        const aged = await c.query(`UPDATE chain_cursors SET block_time = clock_timestamp() - interval '5 hours' WHERE mode = 'test' AND network = 'solana'`);
        expect(aged.rowCount).toBe(1);
        const closed = await c.query(`UPDATE deposit_addresses SET watch_until = clock_timestamp() - interval '3 hours' WHERE invoice_id = $1`, [invoiceId]);
        expect(closed.rowCount).toBe(1);
      });
      bed.advance(40);
      const payer = await solanaPayer(bed, { mint: usdc, amount: '10' });
      const paid = bed.submit(await tokenTransfer(bed, payer, shop.wallet, usdc, units('6', 6), [pay.reference]));
      bed.advance(3);

      // Started again, the watcher reads on through the slots it missed, judging each step's windows by the time
      // it was last at the head, not by now: the payment counts.
      server = await startServer({ databaseUrl: db.url, env });
      const api = new Api(shop.test.key, server.baseUrl);
      const [payment] = await waitForPayments(api, invoiceId, (p) => p.length === 1, 30_000);
      expect(payment.idempotency_key).toBe(`solana:${paid}:${pay.reference}`);
      expect(payment.price).toBe(r30('6'));
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
