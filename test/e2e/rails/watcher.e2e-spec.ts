import { Webhook } from 'standardwebhooks';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService } from '../../support/isolated';
import { errorLines } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, D, r30, shortState } from '../payments/payments-helpers';
import { ChainSetup, merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from './chain-helpers';

describe('the EVM chain watcher against a real node', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup, { CLOCK_CONTROL: 'true' });
    receiver = await WebhookReceiver.start();
  }, 120_000);
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await setup?.chain.stop();
  });

  it('sees an exact USDT payment: PENDING while confirmations count, COMPLETED at 12, with signed webhooks', async () => {
    const shop = await merchant(service);
    const endpoint = expectSuccess(
      await shop.test.post('/webhooks', { url: receiver.url(`/exact-${shop.id}`), event_types: ['payment.created', 'payment.updated', 'invoice.completed'] }),
      201,
    );
    // An invoice in USDT: the amount asked is its price exactly, so paying it completes the invoice without a remainder either way.
    const invoiceId = await createInvoice(shop.test, '25.494902', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    expect(pay.address).toBe(shop.at(0));
    expect(pay.amount).toBe(r30('25.494902'));
    const hash = await setup.chain.sendToken(setup.usdt, 1, pay.address, units('25.494902', 6));
    const receipt = await setup.chain.receipt(hash);

    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({
      provider_id: 'prov_ethereum_usdt',
      currency: 'USDT',
      price: r30('25.494902'),
      status: 'PENDING',
      idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}`,
      required_confirmations: 12,
    });
    expect(seen.confirmations).toBeGreaterThanOrEqual(1);
    const block = await setup.chain.public.getBlock({ blockNumber: receipt.blockNumber });
    expect(seen.happened_at).toBe(new Date(Number(block.timestamp) * 1000).toISOString().slice(0, 19).replace('T', ' '));
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');

    await setup.chain.mine(5);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].confirmations === 6 && p[0].status === 'PENDING');
    await setup.chain.mine(6);
    const [done] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(done.confirmations).toBe(12);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    const path = `/exact-${shop.id}`;
    const hooks = await receiver.waitFor((all) => all.some((w) => w.path === path && w.json.type === 'invoice.completed'));
    const mine = hooks.filter((w) => w.path === path);
    const types = mine.map((w) => w.json.type);
    expect(types).toContain('payment.created');
    expect(types.filter((t) => t === 'payment.updated').length).toBeGreaterThanOrEqual(2);
    for (const hook of mine) expect(() => new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    const completed = mine.find((w) => w.json.type === 'payment.updated' && w.json.data.object.status === 'COMPLETED');
    expect(completed!.json.data.object).toMatchObject({ id: done.id, confirmations: 12 });
  });

  it('sees a native coin payment', async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '30');
    const pay = await paymentAddress(shop.test, invoiceId, 'prov_ethereum_ethereum');
    const wei = units(new D(pay.amount).toFixed(18), 18);
    const hash = await setup.chain.sendNative(2, pay.address, wei);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ provider_id: 'prov_ethereum_ethereum', currency: 'ETHEREUM', price: pay.amount, idempotency_key: `ethereum:${hash}:native` });
    // The amount asked was rounded up to a wei, so the payment is worth a hair more than the invoice's 30 USD...
    expect(new D(seen.price_usd as string).gt(30)).toBe(true);
    await setup.chain.mine(11);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    // ...which is the rounding, not an overpayment: paying exactly what was asked is no PAID_OVER.
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('takes a partial payment, then the remainder the address now asks for', async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '100', 'USDT');
    const first = await paymentAddress(shop.test, invoiceId);
    expect(first.amount).toBe(r30('100'));
    await setup.chain.sendToken(setup.usdt, 1, first.address, units('40', 6));
    await setup.chain.mine(11);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const rest = await paymentAddress(shop.test, invoiceId);
    expect(rest.address).toBe(first.address);
    expect(rest.amount).toBe(r30('60'));
    await setup.chain.sendToken(setup.usdt, 1, rest.address, units(new D(rest.amount).toFixed(6), 6));
    await setup.chain.mine(11);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('marks an overpayment PAID_OVER', async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '10');
    const pay = await paymentAddress(shop.test, invoiceId);
    await setup.chain.sendToken(setup.usdt, 1, pay.address, units('15', 6));
    await setup.chain.mine(11);
    await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
  });

  it('records two invoices paid in one block, and two transfers of one transaction, once each', async () => {
    const shop = await merchant(service);
    const [a, b, c, d] = await Promise.all([
      createInvoice(shop.test, '5'),
      createInvoice(shop.test, '6'),
      createInvoice(shop.test, '7'),
      createInvoice(shop.test, '8'),
    ]);
    const [pa, pb, pc, pd] = await Promise.all([
      paymentAddress(shop.test, a),
      paymentAddress(shop.test, b),
      paymentAddress(shop.test, c),
      paymentAddress(shop.test, d),
    ]);
    await setup.chain.test.setAutomine(false);
    try {
      const ha = await setup.chain.sendToken(setup.usdt, 3, pa.address, units(new D(pa.amount).toFixed(6), 6));
      const hb = await setup.chain.sendToken(setup.usdt, 4, pb.address, units(new D(pb.amount).toFixed(6), 6));
      await setup.chain.mine(1);
      const [ra, rb] = [await setup.chain.receipt(ha), await setup.chain.receipt(hb)];
      expect(ra.blockNumber).toBe(rb.blockNumber);
    } finally {
      await setup.chain.test.setAutomine(true);
    }
    // One transaction paying two invoices: two Transfer logs, two payments.
    const batch = await setup.chain.sendTokenMany(
      setup.usdt,
      0,
      [pc.address, pd.address],
      [units(new D(pc.amount).toFixed(6), 6), units(new D(pd.amount).toFixed(6), 6)],
    );
    await setup.chain.mine(11);
    for (const id of [a, b, c, d]) {
      const payments = await waitForPayments(shop.test, id, (p) => p.length === 1 && p[0].status === 'COMPLETED');
      expect(payments).toHaveLength(1);
    }
    const keys = (await Promise.all([c, d].map((id) => waitForPayments(shop.test, id, (p) => p.length === 1)))).map((p) => p[0].idempotency_key);
    expect(keys[0]).toMatch(new RegExp(`^ethereum:${batch}:\\d+$`));
    expect(keys[1]).toMatch(new RegExp(`^ethereum:${batch}:\\d+$`));
    expect(keys[0]).not.toBe(keys[1]);
    for (const id of [a, b, c, d]) expect((await shortState(shop.test, id)).status).toBe('COMPLETED');
  });

  it("records a payment to a voided invoice's address and leaves the invoice VOIDED", async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '12');
    const pay = await paymentAddress(shop.test, invoiceId);
    expectSuccess(await shop.test.put(`/invoices/${invoiceId}`, { status: 'VOIDED' }));
    await setup.chain.sendToken(setup.usdt, 1, pay.address, units(new D(pay.amount).toFixed(6), 6));
    await setup.chain.mine(11);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'COMPLETED');
    expect(seen.price).toBe(pay.amount);
    expect((await shortState(shop.test, invoiceId)).status).toBe('VOIDED');
  });

  it('reports the chain on /metrics and keeps readiness independent of it', async () => {
    const metrics = await (await fetch(`${service.server.baseUrl}/metrics`)).text();
    const head = Number(/chain_head_block\{network="ethereum",mode="test"\} (\d+)/.exec(metrics)?.[1]);
    expect(head).toBe(Number(await setup.chain.blockNumber()));
    expect(metrics).toMatch(/chain_lag_blocks\{network="ethereum",mode="test"\} \d+/);
    expect(metrics).toMatch(/chain_rpc_errors_total/);
    expect((await fetch(`${service.server.baseUrl}/health/ready`)).status).toBe(200);
  });

  it('records a payment made after expiry inside the monitoring window as PAID_LATE', async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '9', 'USD', { expires_in_minutes: 5 });
    const pay = await paymentAddress(shop.test, invoiceId);
    // Both the service's clock and the chain's move 10 minutes: the payment's block is after expires_at.
    expectSuccess(await shop.test.post('/test_helpers/clock', { advance_seconds: 600 }));
    await setup.chain.test.increaseTime({ seconds: 600 });
    await setup.chain.sendToken(setup.usdt, 1, pay.address, units(new D(pay.amount).toFixed(6), 6));
    await setup.chain.mine(11);
    await waitForPayments(shop.test, invoiceId, (p) => p[0]?.status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
    expect(errorLines(service.server)).toEqual([]);
  });
});
