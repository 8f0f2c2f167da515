import { Webhook } from 'standardwebhooks';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D, r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { databaseOf } from '../timing/timing-helpers';
import {
  API_CALL_TIERS,
  clockNow,
  monthStart,
  moveClockTo,
  nextInvoice,
  parseTime,
  readInvoice,
  readSubscription,
  recurringProduct,
  schedulerPass,
  ts,
  waitFor,
} from './subscription-helpers';

describe('subscriptions billed on the test clock', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({
      CLOCK_CONTROL: 'true',
      // The scheduler never ticks: each step runs its pass on demand (schedulerPass) and finds it done.
      SUBSCRIPTIONS_TICK_SECONDS: '0',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      INVOICE_SWEEP_SECONDS: '0',
    });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it('bills a monthly metered plan over moved months: proration on a calendar start, graduated tiers, a duplicate ignored, PAST_DUE, ACTIVE again, cancel at period end', async () => {
    const org = await service.createOrg('Metered');
    const api = org.test;
    const endpoint = expectSuccess(
      await api.post('/webhooks', {
        url: receiver.url(),
        event_types: ['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created'],
      }),
      201,
    );
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'PRORATED' }, API_CALL_TIERS);

    // Start on the 16th of next month at midnight (UTC), on the moved test clock.
    const month1 = monthStart(await clockNow(api), 1);
    const start = new Date(month1.getTime() + 15 * 86_400_000);
    await moveClockTo(api, start, 1);
    const created = await api.post('/subscriptions', {
      product_id: productId,
      billing_schema_id: schemaId,
      customer_email: 'jane@example.com',
      customer_name: 'Jane',
      starts_at: ts(start),
      metadata: { plan: 'metered' },
    });
    const sub = expectSuccess(created, 201);
    const month2 = monthStart(month1, 1);
    expect(sub).toMatchObject({
      status: 'ACTIVE',
      product_id: productId,
      billing_schema_id: schemaId,
      customer_email: 'jane@example.com',
      quantity: 1,
      current_period_start: ts(start),
      current_period_end: ts(month2),
      next_invoice_at: ts(month2),
      cancel_at_period_end: false,
      canceled_at: null,
      latest_invoice_id: null,
    });
    expect(sub.id).toMatch(/^subscription_/);

    // Usage of the first (partial) period: 150 calls (one event sent twice), 2 distinct users.
    const first = await api.post('/usage_events', { id: 'call-1', subscription_id: sub.id, metric_key: 'api_calls', value: 100 });
    expect(expectSuccess(first, 201)).toMatchObject({ id: 'call-1', value: r30(100) });
    const repeat = await api.post('/usage_events', { id: 'call-1', subscription_id: sub.id, metric_key: 'api_calls', value: 999 });
    expect(expectSuccess(repeat, 200)).toEqual(expectSuccess(first, 201));
    const batch = expectSuccess(
      await api.post('/usage_events/batch', {
        events: [
          { id: 'call-2', subscription_id: sub.id, metric_key: 'api_calls', value: '50' },
          { id: 'u-1', subscription_id: sub.id, metric_key: 'active_users', unique_key: 'alice' },
          { id: 'u-2', subscription_id: sub.id, metric_key: 'active_users', unique_key: 'bob' },
          { id: 'u-3', subscription_id: sub.id, metric_key: 'active_users', unique_key: 'alice' },
          { id: 'call-1', subscription_id: sub.id, metric_key: 'api_calls', value: '5' },
        ],
      }),
    );
    expect(batch).toMatchObject({ created: 4, duplicates: 1 });

    // 10 USD prorated by seconds: (days in month - 15) of its days; 150 calls: 100 free, 50 at 0.01; 2 users at 1.
    const days = new Date(month2.getTime() - 86_400_000).getUTCDate();
    const base1 = new D(10).mul(days - 15).div(days);
    const total1 = r30(base1.add('0.5').add(2));
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming).toMatchObject({ period_start: ts(start), period_end: ts(month2), invoice_at: ts(month2), currency: 'USD', total: total1 });
    expect(upcoming.lines).toEqual([
      expect.objectContaining({ type: 'BASE', quantity: '1', amount: r30(base1) }),
      expect.objectContaining({ type: 'USAGE', metric_key: 'api_calls', quantity: r30(150), amount: r30('0.5') }),
      expect.objectContaining({ type: 'USAGE', metric_key: 'active_users', quantity: r30(2), amount: r30(2) }),
    ]);

    // Month 1 ends: its invoice is issued at once.
    await moveClockTo(api, month2);
    const invoice1 = await nextInvoice(api, sub.id, null, schedulerPass(api));
    expect(invoice1).toMatchObject({
      subscription_id: sub.id,
      period_start: ts(start),
      period_end: ts(month2),
      currency: 'USD',
      price: total1,
      customer_email: 'jane@example.com',
    });
    expect(await readSubscription(api, sub.id)).toMatchObject({
      status: 'ACTIVE',
      current_period_start: ts(month2),
      current_period_end: ts(monthStart(month2, 1)),
    });
    expectSuccess(await api.put(`/invoices/${invoice1.id}`, { status: 'COMPLETED' }));

    // Month 2: 1,500 calls = 900 at 0.01 + 500 at 0.005 (the first 100 free), base whole.
    await api.post('/usage_events', { id: 'call-3', subscription_id: sub.id, metric_key: 'api_calls', value: 1500 });
    const month3 = monthStart(month2, 1);
    await moveClockTo(api, month3);
    const invoice2 = await nextInvoice(api, sub.id, invoice1.id, schedulerPass(api));
    expect(invoice2).toMatchObject({ subscription_id: sub.id, period_start: ts(month2), period_end: ts(month3), price: r30('21.5') });
    // The payer (no key) sees the period it pays for, not the subscription's id.
    const payerView = expectSuccess(await new Api(null, service.server.baseUrl).post(`/invoices/${invoice2.id}`, {}));
    expect(payerView).toMatchObject({ id: invoice2.id, period_start: ts(month2), period_end: ts(month3) });
    expect(payerView).not.toHaveProperty('subscription_id');
    // Left unpaid and voided: PAST_DUE.
    expectSuccess(await api.put(`/invoices/${invoice2.id}`, { status: 'VOIDED' }));
    expect(
      (
        await waitFor(
          () => readSubscription(api, sub.id),
          (s) => s.status === 'PAST_DUE',
          undefined,
          schedulerPass(api),
        )
      ).status,
    ).toBe('PAST_DUE');

    // Month 3: no usage; its invoice paid makes it ACTIVE again.
    const month4 = monthStart(month3, 1);
    await moveClockTo(api, month4);
    const invoice3 = await nextInvoice(api, sub.id, invoice2.id, schedulerPass(api));
    expect(invoice3).toMatchObject({ period_start: ts(month3), period_end: ts(month4), price: r30(10) });
    expectSuccess(await api.put(`/invoices/${invoice3.id}`, { status: 'COMPLETED' }));
    expect(
      (
        await waitFor(
          () => readSubscription(api, sub.id),
          (s) => s.status === 'ACTIVE',
          undefined,
          schedulerPass(api),
        )
      ).status,
    ).toBe('ACTIVE');

    // Canceled at period end: still ACTIVE in month 4, its period billed at the end, then CANCELED.
    const canceling = expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, { at_period_end: true }));
    expect(canceling).toMatchObject({ status: 'ACTIVE', cancel_at_period_end: true, canceled_at: null });
    await api.post('/usage_events', { id: 'call-4', subscription_id: sub.id, metric_key: 'api_calls', value: 200 });
    const month5 = monthStart(month4, 1);
    // Usage from its end on would be billed by no invoice: refused, also before the scheduler closes the period.
    expectError(
      await api.post('/usage_events', { id: 'call-after-end', subscription_id: sub.id, metric_key: 'api_calls', value: 7, timestamp: ts(month5) }),
      400,
      { field: 'timestamp' },
    );
    await moveClockTo(api, month5);
    expectError(await api.post('/usage_events', { id: 'call-at-end', subscription_id: sub.id, metric_key: 'api_calls', value: 7 }), 400, {
      field: 'subscription_id',
    });
    expect((await readSubscription(api, sub.id)).status).toBe('ACTIVE');
    const invoice4 = await nextInvoice(api, sub.id, invoice3.id, schedulerPass(api));
    expect(invoice4).toMatchObject({ period_start: ts(month4), period_end: ts(month5), price: r30(11) });
    expect(await readSubscription(api, sub.id)).toMatchObject({ status: 'CANCELED', canceled_at: ts(month5), next_invoice_at: null });
    expectError(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`), 404, { code: 'no_upcoming_invoice' });
    expectError(await api.post('/usage_events', { id: 'call-5', subscription_id: sub.id, metric_key: 'api_calls' }), 400, { field: 'subscription_id' });

    // A further month issues nothing more.
    // (A whole pass of the scheduler at that time, not a wait for ticks.)
    await moveClockTo(api, monthStart(month5, 1));
    await schedulerPass(api)();
    const invoices = expectSuccess(await api.post('/invoices/list', {}));
    expect(invoices.items.map((i: any) => i.id).sort()).toEqual([invoice1.id, invoice2.id, invoice3.id, invoice4.id].sort());

    // Webhooks: signed, the subscription's events and the period invoices' invoice.created carrying subscription_id.
    const received = await receiver.waitFor(
      (r) => r.filter((x) => x.json?.type === 'invoice.created').length >= 4 && r.some((x) => x.json?.type === 'subscription.canceled'),
    );
    const ours = received.filter((x) => x.json?.data?.object?.subscription_id === sub.id || x.json?.data?.object?.id === sub.id);
    const types = ours.map((x) => x.json.type);
    expect(types).toEqual(expect.arrayContaining(['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created']));
    expect(ours.filter((x) => x.json.type === 'invoice.created').map((x) => x.json.data.object.period_start)).toEqual(
      expect.arrayContaining([ts(start), ts(month2), ts(month3), ts(month4)]),
    );
    for (const delivery of ours) expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toBeTruthy();
    const pastDue = ours.find((x) => x.json.type === 'subscription.updated' && x.json.data.object.status === 'PAST_DUE');
    expect(pastDue?.json.data.previous_attributes).toMatchObject({ status: 'ACTIVE' });
  }, 180_000);

  it('ADVANCE bills the base at the period start with the previous period usage; two unpaid periods cancel it', async () => {
    const org = await service.createOrg('Advance');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(
      api,
      { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 20 },
      API_CALL_TIERS,
    );
    const start = await clockNow(api);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'team@example.com', quantity: 3 }),
      201,
    );
    // The first period's invoice comes at its start: 3 x 20, no usage yet.
    const invoice1 = await nextInvoice(api, sub.id, null, schedulerPass(api));
    expect(invoice1).toMatchObject({ subscription_id: sub.id, period_start: sub.current_period_start, price: r30(60) });
    const periodEnd = new Date(`${sub.current_period_end.replace(' ', 'T')}Z`);
    expect(periodEnd.getUTCDate()).toBe(
      Math.min(start.getUTCDate(), new Date(Date.UTC(periodEnd.getUTCFullYear(), periodEnd.getUTCMonth() + 1, 0)).getUTCDate()),
    );
    await api.post('/usage_events', { id: 'a-1', subscription_id: sub.id, metric_key: 'api_calls', value: 300 });
    expectSuccess(await api.put(`/invoices/${invoice1.id}`, { status: 'VOIDED' }));
    expect(
      (
        await waitFor(
          () => readSubscription(api, sub.id),
          (s) => s.status === 'PAST_DUE',
          undefined,
          schedulerPass(api),
        )
      ).status,
    ).toBe('PAST_DUE');

    // The second period's invoice: its base, and the first period's 300 calls (200 at 0.01).
    await moveClockTo(api, periodEnd);
    const invoice2 = await nextInvoice(api, sub.id, invoice1.id, schedulerPass(api));
    expect(invoice2).toMatchObject({ period_start: sub.current_period_end, price: r30(62) });
    expectSuccess(await api.put(`/invoices/${invoice2.id}`, { status: 'VOIDED' }));
    const canceled = await waitFor(
      () => readSubscription(api, sub.id),
      (s) => s.status === 'CANCELED',
      undefined,
      schedulerPass(api),
    );
    expect(canceled).toMatchObject({ status: 'CANCELED', next_invoice_at: null });
    expect((await readInvoice(api, invoice2.id)).subscription_id).toBe(sub.id);
  }, 120_000);

  it('does not dun a period whose payment was seen in time and is still settling when the window closes; it counts once settled', async () => {
    const org = await service.createOrg('Settling');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 20 });
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'late@example.com' }),
      201,
    );
    const invoice = await nextInvoice(api, sub.id, null, schedulerPass(api));
    // The payer pays before the window closes; the provider has not answered yet: PROCESSING.
    const payment = expectSuccess(
      await api.post('/test_helpers/payments', { invoice_id: invoice.id, provider_id: 'prov_card_usd', price: '20', status: 'PENDING' }),
      201,
    );
    expect((await readInvoice(api, invoice.id)).status).toBe('PROCESSING');
    // The window closes with the payment still settling: the period is not decided, the subscription stays ACTIVE.
    await moveClockTo(api, parseTime((await readInvoice(api, invoice.id)).monitoring_until));
    await schedulerPass(api)();
    await schedulerPass(api)();
    expect((await readSubscription(api, sub.id)).status).toBe('ACTIVE');
    // Settled: paid.
    expectSuccess(await api.post(`/test_helpers/payments/${payment.id}/status`, { status: 'COMPLETED' }));
    expect((await readInvoice(api, invoice.id)).status).toBe('COMPLETED');
    await schedulerPass(api)();
    expect((await readSubscription(api, sub.id)).status).toBe('ACTIVE');
    const outcomes = await withClient(
      databaseOf(service),
      async (c) => (await c.query(`SELECT outcome FROM subscription_invoices WHERE subscription_id = $1`, [sub.id])).rows,
    );
    expect(outcomes).toEqual([{ outcome: 'paid' }]);
  }, 60_000);

  it('issues a period with nothing to charge as a COMPLETED invoice, so a usage-only plan is never dunned for a quiet month', async () => {
    const org = await service.createOrg('Usage only');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(
      api,
      { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 0 },
      API_CALL_TIERS,
    );
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'team@example.com' }),
      201,
    );
    // The first period's invoice, at its start: no base price and no usage before it. Nothing can pay 0, so it is settled as issued.
    const invoice1 = await nextInvoice(api, sub.id, null, schedulerPass(api));
    expect(invoice1).toMatchObject({ subscription_id: sub.id, price: r30(0), status: 'COMPLETED', substatus: null });
    const events = expectSuccess(await api.post('/events', { type: ['invoice.created', 'invoice.completed'], limit: 100 })).items as Array<{
      type: string;
      data: { object: { id: string; status: string } };
    }>;
    expect(
      events
        .filter((e) => e.data.object.id === invoice1.id)
        .reverse()
        .map((e) => [e.type, e.data.object.status]),
    ).toEqual([
      ['invoice.created', 'PENDING'],
      ['invoice.completed', 'COMPLETED'],
    ]);

    // The second period bills the first one's 300 calls (200 at 0.01) and waits for its payment as any invoice.
    await api.post('/usage_events', { id: 'z-1', subscription_id: sub.id, metric_key: 'api_calls', value: 300 });
    await moveClockTo(api, new Date(`${sub.current_period_end.replace(' ', 'T')}Z`));
    const invoice2 = await nextInvoice(api, sub.id, invoice1.id, schedulerPass(api));
    expect(invoice2).toMatchObject({ price: r30(2), status: 'PENDING' });
    // Long after the first invoice's expiry and payment window, the subscription is still in good standing.
    await schedulerPass(api)();
    expect(await readSubscription(api, sub.id)).toMatchObject({ status: 'ACTIVE' });
    expect(await readInvoice(api, invoice1.id)).toMatchObject({ status: 'COMPLETED' });
  }, 120_000);

  it('bills a period that ended before a cancel now, even when the scheduler had not reached it yet', async () => {
    const org = await service.createOrg('Cancel after the period');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(
      api,
      { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 10 },
      API_CALL_TIERS,
    );
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'team@example.com' }),
      201,
    );
    expectSuccess(await api.post('/usage_events', { id: 'c-1', subscription_id: sub.id, metric_key: 'api_calls', value: 300 }), 201);
    // The period is served; no scheduler pass runs before the merchant cancels.
    await moveClockTo(api, new Date(`${sub.current_period_end.replace(' ', 'T')}Z`));
    const canceled = expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, {}));
    expect(canceled).toMatchObject({ status: 'CANCELED', next_invoice_at: null });
    // The served period is billed all the same: its base and its 300 calls (200 at 0.01).
    const invoice = await nextInvoice(api, sub.id, null, schedulerPass(api));
    expect(invoice).toMatchObject({ subscription_id: sub.id, period_start: sub.current_period_start, period_end: sub.current_period_end, price: r30(12) });
    // Nothing after it: the next pass bills no further period.
    await schedulerPass(api)();
    expect((await readSubscription(api, sub.id)).latest_invoice_id).toBe(invoice.id);
  }, 120_000);

  it('bills a period that began before a cancel at period end, even when the scheduler had not reached it yet', async () => {
    const org = await service.createOrg('Cancel at the end after the start');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 10 });
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'team@example.com' }),
      201,
    );
    const first = await nextInvoice(api, sub.id, null, schedulerPass(api));
    // The second period has begun; no scheduler pass runs before the merchant asks to cancel at period end.
    await moveClockTo(api, new Date(`${sub.current_period_end.replace(' ', 'T')}Z`));
    const asked = expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, { at_period_end: true }));
    // It ends at the end of the period under way, the second, whose invoice (billed in advance) is issued.
    expect(asked).toMatchObject({ status: 'ACTIVE', cancel_at_period_end: true, current_period_start: sub.current_period_end });
    const second = await nextInvoice(api, sub.id, first.id, schedulerPass(api));
    expect(second).toMatchObject({ period_start: sub.current_period_end, price: r30(10) });
  }, 120_000);

  it("ADVANCE canceled at period end bills its last period's usage in a final usage-only invoice at the end; none when that usage costs nothing", async () => {
    const org = await service.createOrg('Advance final usage');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(
      api,
      { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 20 },
      API_CALL_TIERS,
    );
    const subscribe = async (email: string) =>
      expectSuccess(await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: email }), 201);
    const used = await subscribe('used@example.com');
    const quiet = await subscribe('quiet@example.com');
    const usedFirst = await nextInvoice(api, used.id, null, schedulerPass(api));
    const quietFirst = await nextInvoice(api, quiet.id, null, schedulerPass(api));
    expect(usedFirst).toMatchObject({ price: r30(20), period_start: used.current_period_start });

    // Usage of the one period served: 300 calls (200 at 0.01) and one user; the quiet one only free calls.
    expectSuccess(
      await api.post('/usage_events/batch', {
        events: [
          { id: 'f-1', subscription_id: used.id, metric_key: 'api_calls', value: 300 },
          { id: 'f-2', subscription_id: used.id, metric_key: 'active_users', unique_key: 'alice' },
          { id: 'f-3', subscription_id: quiet.id, metric_key: 'api_calls', value: 40 },
        ],
      }),
    );
    for (const s of [used, quiet]) expectSuccess(await api.post(`/subscriptions/${s.id}/cancel`, { at_period_end: true }));
    const end = used.current_period_end;

    // What will come: the usage lines alone, at the end; the quiet one has nothing to bill.
    const upcoming = expectSuccess(await api.get(`/subscriptions/${used.id}/upcoming_invoice`));
    expect(upcoming).toMatchObject({ period_start: end, period_end: end, invoice_at: end, total: r30(3) });
    expect(upcoming.lines).toEqual([
      expect.objectContaining({
        type: 'USAGE',
        metric_key: 'api_calls',
        quantity: r30(300),
        amount: r30(2),
        period_start: used.current_period_start,
        period_end: end,
      }),
      expect.objectContaining({ type: 'USAGE', metric_key: 'active_users', quantity: r30(1), amount: r30(1) }),
    ]);
    expectError(await api.get(`/subscriptions/${quiet.id}/upcoming_invoice`), 404, { code: 'no_upcoming_invoice' });

    await moveClockTo(api, new Date(`${end.replace(' ', 'T')}Z`));
    const final = await nextInvoice(api, used.id, usedFirst.id, schedulerPass(api));
    expect(final).toMatchObject({ subscription_id: used.id, period_start: end, period_end: end, price: r30(3), status: 'PENDING' });
    const items = expectSuccess(await api.post(`/invoices/${final.id}`, { expand: ['items'] })).items as any[];
    expect(items.map((i) => [i.type, i.price, i.description])).toEqual([
      ['PAYMENT_INTENT', r30(2), expect.stringMatching(/API calls, 300 units/)],
      ['PAYMENT_INTENT', r30(1), expect.stringMatching(/Active users, 1 unit/)],
    ]);
    expect(await readSubscription(api, used.id)).toMatchObject({ status: 'CANCELED', canceled_at: end, latest_invoice_id: final.id, next_invoice_at: null });
    // The quiet one ended without a further invoice.
    const ended = await readSubscription(api, quiet.id);
    expect(ended).toMatchObject({ status: 'CANCELED', latest_invoice_id: quietFirst.id });
    await schedulerPass(api)();
    const all = expectSuccess(await api.post('/invoices/list', {})).items as any[];
    expect(all.map((i) => i.id).sort()).toEqual([usedFirst.id, quietFirst.id, final.id].sort());
    // Its usage is billed now: a late event for that period is refused.
    expectError(
      await api.post('/usage_events', {
        id: 'f-late',
        subscription_id: used.id,
        metric_key: 'api_calls',
        value: 1,
        timestamp: ts(new Date(Date.parse(`${used.current_period_start.replace(' ', 'T')}Z`) + 60_000)),
      }),
      400,
      { field: 'subscription_id' },
    );
  }, 120_000);

  it('catches up several periods in one clock move, and ADVANCE canceled at period end bills no further period', async () => {
    const org = await service.createOrg('Catch up');
    const api = org.test;
    const { productId, schemaId } = await recurringProduct(api, {
      payment_type: 'ADVANCE',
      renew_type: 'CALENDAR',
      billing_type: 'FULL',
      interval_type: 'WEEK',
    });
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'weekly@example.com' }),
      201,
    );
    const first = await nextInvoice(api, sub.id, null, schedulerPass(api));
    // A CALENDAR week with FULL: the partial first week is charged whole; it ends on the next Monday.
    expect(first).toMatchObject({ price: r30(10), period_start: sub.current_period_start, period_end: sub.current_period_end });
    expect(new Date(`${sub.current_period_end.replace(' ', 'T')}Z`).getUTCDay()).toBe(1);
    // Three weeks at once: three more invoices, one per week, all in one pass of the scheduler.
    const end = new Date(`${sub.current_period_end.replace(' ', 'T')}Z`);
    await moveClockTo(api, new Date(end.getTime() + 2 * 7 * 86_400_000));
    await schedulerPass(api)();
    const caughtUp = await readSubscription(api, sub.id);
    expect(caughtUp.current_period_start).toBe(ts(new Date(end.getTime() + 2 * 7 * 86_400_000)));
    // The subscription moves on period by period; each period's invoice is issued in the same pass.
    const invoices = expectSuccess(await api.post('/invoices/list', {})).items as any[];
    expect(invoices.map((i) => i.period_start).sort()).toEqual(
      [sub.current_period_start, ts(end), ts(new Date(end.getTime() + 7 * 86_400_000)), ts(new Date(end.getTime() + 14 * 86_400_000))].sort(),
    );
    // Canceled at the end of this week: the next week is not billed, and it ends on the boundary.
    expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, { at_period_end: true }));
    expectError(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`), 404, { code: 'no_upcoming_invoice' });
    await moveClockTo(api, new Date(`${caughtUp.current_period_end.replace(' ', 'T')}Z`));
    const ended = await waitFor(
      () => readSubscription(api, sub.id),
      (s) => s.status === 'CANCELED',
      undefined,
      schedulerPass(api),
    );
    expect(ended).toMatchObject({ status: 'CANCELED', canceled_at: caughtUp.current_period_end, next_invoice_at: null });
    expect(expectSuccess(await api.post('/invoices/list', {})).total).toBe(4);
  }, 120_000);

  it('refuses usage of an ADVANCE subscription canceled at period end before it began: it ends at its start, and no invoice would bill it', async () => {
    const api = (await service.createOrg('Not started')).test;
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, API_CALL_TIERS);
    const start = new Date(Math.floor((await clockNow(api)).getTime() / 1000) * 1000 + 2 * 86_400_000);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'later@example.com', starts_at: ts(start) }),
      201,
    );
    expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, { at_period_end: true }));
    const usage = {
      id: 'before-any-invoice',
      subscription_id: sub.id,
      metric_key: 'api_calls',
      value: '500',
      timestamp: ts(new Date(start.getTime() + 3_600_000)),
    };
    const refused = await api.post('/usage_events', usage);
    expectError(refused, 400, { field: 'timestamp' });
    expect(refused.body.validator.timestamp).toContain(`ended at ${ts(start)}`);
    // The scheduler ends it at its start, with no invoice.
    await moveClockTo(api, new Date(start.getTime() + 3 * 86_400_000));
    const ended = await waitFor(
      () => readSubscription(api, sub.id),
      (s) => s.status === 'CANCELED',
      undefined,
      schedulerPass(api),
    );
    expect(ended).toMatchObject({ canceled_at: ts(start), latest_invoice_id: null });
    expect(expectSuccess(await api.post('/invoices/list', {})).total).toBe(0);
  });
});
