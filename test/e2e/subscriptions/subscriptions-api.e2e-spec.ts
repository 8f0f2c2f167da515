import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { convert, r30 } from '../../support/money';
import { oneTimeSchema, productBody, recurringSchema } from '../products/product-bodies';
import { ts } from './subscription-helpers';

async function recurringPlan(org: TestOrg, api: Api = org.test): Promise<{ productId: string; schemaId: string; oneTimeId: string }> {
  const productId = expectSuccess(await api.post('/products', productBody())).id;
  const product = expectSuccess(await api.get(`/products/${productId}`));
  return { productId, schemaId: product.schemas[0].id, oneTimeId: product.schemas[1].id };
}

const subscribe = (api: Api, plan: { productId: string; schemaId: string }, extra: Record<string, unknown> = {}) =>
  api.post('/subscriptions', { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: 'jane@example.com', ...extra });

describe('subscriptions API', () => {
  let org: TestOrg;
  let plan: Awaited<ReturnType<typeof recurringPlan>>;
  beforeAll(async () => {
    org = await createOrg();
    plan = await recurringPlan(org);
  });

  it('creates a subscription on the current CALENDAR month and reads it back', async () => {
    const sub = expectSuccess(await subscribe(org.test, plan, { quantity: 2, customer_name: 'Jane', metadata: { seat: 'a' } }), 201);
    const now = new Date();
    const nextMonth = ts(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));
    expect(sub).toMatchObject({
      status: 'ACTIVE',
      quantity: 2,
      customer_name: 'Jane',
      metadata: { seat: 'a' },
      current_period_end: nextMonth,
      next_invoice_at: nextMonth,
      cancel_at_period_end: false,
      canceled_at: null,
    });
    expect(expectSuccess(await org.test.get(`/subscriptions/${sub.id}`))).toEqual(sub);
    // The other mode and another organization do not see it.
    expectError(await org.live.get(`/subscriptions/${sub.id}`), 404, { code: 'subscription_not_found' });
    expectError(await (await createOrg()).test.get(`/subscriptions/${sub.id}`), 404);
    expectError(await org.test.get('/subscriptions/subscription_nope'), 404);
  });

  it('refuses a quantity whose base amount no invoice could hold (400 naming quantity), and takes one that fits', async () => {
    const plan = async (currency: string, base: string) => {
      const productId = expectSuccess(
        await org.test.post('/products', productBody({ schemas: [recurringSchema({ currency, base_price: base, configurations: [] })] })),
      ).id;
      return { productId, schemaId: expectSuccess(await org.test.get(`/products/${productId}`)).schemas[0].id };
    };
    // 10^46 USD: a thousand seats come to 10^49, past 48 integer digits; ten seats fit.
    const huge = await plan('USD', `1${'0'.repeat(46)}`);
    expectError(await subscribe(org.test, huge, { quantity: 1000 }), 400, { field: 'quantity' });
    expectSuccess(await subscribe(org.test, huge, { quantity: 10 }), 201);
    // 10^44 BTC fits as an amount, but its USD value (tens of thousands of USD a coin) does not.
    expectError(await subscribe(org.test, await plan('BITCOIN', `1${'0'.repeat(44)}`)), 400, { field: 'quantity' });
  });

  it.each([
    ['no product_id', { product_id: undefined }, 'product_id'],
    ['an unknown product', { product_id: 'product_unknown' }, 'product_id'],
    ['a ONE_TIME schema', { one_time: true }, 'billing_schema_id'],
    ['a schema of another product', { billing_schema_id: 'schema_unknown' }, 'billing_schema_id'],
    ['no customer_email', { customer_email: undefined }, 'customer_email'],
    ['a bad customer_email', { customer_email: 'not-an-email' }, 'customer_email'],
    ['quantity 0', { quantity: 0 }, 'quantity'],
    ['a fractional quantity', { quantity: 1.5 }, 'quantity'],
    ['a bad starts_at', { starts_at: 'tomorrow' }, 'starts_at'],
    ['starts_at two days ago', { starts_at: ts(new Date(Date.now() - 2 * 86_400_000)) }, 'starts_at'],
    ['an unknown field', { plan: 'pro' }, 'plan'],
  ])('refuses %s (400 naming the field)', async (_, change, field) => {
    const body: Record<string, unknown> = { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: 'jane@example.com' };
    for (const [k, v] of Object.entries(change)) {
      if (k === 'one_time') body.billing_schema_id = plan.oneTimeId;
      else if (v === undefined) delete body[k];
      else body[k] = v;
    }
    expectError(await org.test.post('/subscriptions', body), 400, { field });
  });

  it('refuses a replaced (inactive) product version', async () => {
    const own = await recurringPlan(org);
    expectSuccess(await org.test.put(`/products/${own.productId}`, productBody({ schemas: [recurringSchema(), oneTimeSchema()] })));
    expectError(await subscribe(org.test, own), 400, { field: 'product_id' });
  });

  it('needs a key (401) with write rights (403) for writes', async () => {
    const sub = expectSuccess(await subscribe(org.test, plan), 201);
    const anonymous = new Api(null);
    expectError(await anonymous.get('/subscriptions'), 401);
    expectError(await anonymous.get(`/subscriptions/${sub.id}`), 401);
    expectError(await subscribe(anonymous, plan), 401);
    expectError(await anonymous.post('/usage_events', { id: 'x', subscription_id: sub.id, metric_key: 'api_calls' }), 401);
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await subscribe(readOnly, plan), 403);
    expectError(await readOnly.post(`/subscriptions/${sub.id}/cancel`, {}), 403);
    expectError(await readOnly.post('/usage_events', { id: 'x', subscription_id: sub.id, metric_key: 'api_calls' }), 403);
    expectError(await readOnly.post('/usage_events/batch', { events: [{ id: 'x', subscription_id: sub.id, metric_key: 'api_calls' }] }), 403);
    expect(expectSuccess(await readOnly.get(`/subscriptions/${sub.id}`)).id).toBe(sub.id);
    expect(expectSuccess(await readOnly.get(`/subscriptions/${sub.id}/upcoming_invoice`)).subscription_id).toBe(sub.id);
  });

  it('honours Idempotency-Key on create', async () => {
    const headers = { 'idempotency-key': `sub-${Date.now()}` };
    const body = { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: 'idem@example.com' };
    const first = expectSuccess(await org.test.post('/subscriptions', body, { headers }), 201);
    const again = await org.test.post('/subscriptions', body, { headers });
    expect(expectSuccess(again, 201).id).toBe(first.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = expectSuccess(await org.test.get('/subscriptions?customer_email=IDEM@example.com'));
    expect(list.total).toBe(1);
  });

  it('lists newest first with filters and pages', async () => {
    const own = await createOrg();
    const ownPlan = await recurringPlan(own);
    const a = expectSuccess(await subscribe(own.test, ownPlan, { customer_email: 'a@example.com' }), 201);
    const b = expectSuccess(await subscribe(own.test, ownPlan, { customer_email: 'b@example.com' }), 201);
    const c = expectSuccess(await subscribe(own.test, ownPlan, { customer_email: 'a@example.com' }), 201);
    expectSuccess(await own.test.post(`/subscriptions/${b.id}/cancel`, {}));
    const all = expectSuccess(await own.test.get('/subscriptions'));
    expect(all).toMatchObject({ total: 3, limit: 20, offset: 0, has_more: false });
    expect(all.items.map((s: any) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(expectSuccess(await own.test.get('/subscriptions?status=CANCELED')).items.map((s: any) => s.id)).toEqual([b.id]);
    expect(expectSuccess(await own.test.get('/subscriptions?status=CANCELED,PAST_DUE')).items.map((s: any) => s.id)).toEqual([b.id]);
    expect(expectSuccess(await own.test.get('/subscriptions?status=CANCELED&status=ACTIVE')).total).toBe(3);
    expect(expectSuccess(await own.test.get('/subscriptions?status=ACTIVE&customer_email=a@example.com')).items.map((s: any) => s.id)).toEqual([c.id, a.id]);
    const page = expectSuccess(await own.test.get('/subscriptions?limit=1&offset=1'));
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1, has_more: true });
    expect(page.items.map((s: any) => s.id)).toEqual([b.id]);
    expectError(await own.test.get('/subscriptions?limit=101'), 400, { field: 'limit' });
    expectError(await own.test.get('/subscriptions?status=PAUSED'), 400, { field: 'status' });
    expect(expectSuccess(await own.live.get('/subscriptions')).total).toBe(0);
  });

  it('cancels now or at period end', async () => {
    const later = expectSuccess(await subscribe(org.test, plan), 201);
    const atEnd = expectSuccess(await org.test.post(`/subscriptions/${later.id}/cancel`, { at_period_end: true }));
    expect(atEnd).toMatchObject({ status: 'ACTIVE', cancel_at_period_end: true, canceled_at: null, next_invoice_at: later.next_invoice_at });
    const now = expectSuccess(await org.test.post(`/subscriptions/${later.id}/cancel`));
    expect(now).toMatchObject({ status: 'CANCELED', next_invoice_at: null });
    expect(now.canceled_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expectError(await org.test.post(`/subscriptions/${later.id}/cancel`, {}), 400, { field: 'status' });
    expectError(await org.test.post(`/subscriptions/${later.id}/cancel`, { at_period_end: 'yes' }), 400, { field: 'at_period_end' });
    expectError(await org.live.post(`/subscriptions/${later.id}/cancel`, {}), 404);
  });

  it('records usage once per id, checks every event of a batch, and previews it', async () => {
    const sub = expectSuccess(await subscribe(org.test, plan), 201);
    const event = { id: `e-${sub.id}`, subscription_id: sub.id, metric_key: 'api_calls', value: '1200' };
    const first = expectSuccess(await org.test.post('/usage_events', event), 201);
    expect(first).toMatchObject({ id: event.id, subscription_id: sub.id, metric_key: 'api_calls', value: r30(1200), unique_key: null });
    expect(expectSuccess(await org.test.post('/usage_events', { ...event, value: 5 }), 200)).toEqual(first);
    expectError(await org.test.post('/usage_events', { ...event, id: 'e2', metric_key: 'storage' }), 400, { field: 'metric_key' });
    expectError(await org.test.post('/usage_events', { ...event, id: 'e2', subscription_id: 'subscription_nope' }), 400, { field: 'subscription_id' });
    expectError(await org.live.post('/usage_events', { ...event, id: 'e2' }), 400, { field: 'subscription_id' });
    expectError(await org.test.post('/usage_events', { ...event, id: 'e2', value: '-1' }), 400, { field: 'value' });
    expectError(await org.test.post('/usage_events', { ...event, id: 'e2', timestamp: '2020-01-01 00:00:00' }), 400, { field: 'timestamp' });
    expectError(await org.test.post('/usage_events', { ...event, id: undefined }), 400, { field: 'id' });
    const bad = await org.test.post('/usage_events/batch', {
      events: [
        { id: 'b-1', subscription_id: sub.id, metric_key: 'api_calls' },
        { id: 'b-2', subscription_id: sub.id, metric_key: 'nope' },
      ],
    });
    expectError(bad, 400, { field: 'events.1.metric_key' });
    expectError(await org.test.post('/usage_events/batch', { events: [] }), 400, { field: 'events' });
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `m-${i}`, subscription_id: sub.id, metric_key: 'api_calls' }));
    expectError(await org.test.post('/usage_events/batch', { events: many }), 400, { field: 'events' });
    expectError(await org.test.post('/usage_events/batch', { events: [many[0], many[0]] }), 400, { field: 'events.1.id' });
    // Nothing of the refused batches was recorded: b-1 is new now.
    const ok = expectSuccess(
      await org.test.post('/usage_events/batch', { events: [{ id: 'b-1', subscription_id: sub.id, metric_key: 'api_calls', value: 300 }] }),
    );
    expect(ok).toMatchObject({ created: 1, duplicates: 0 });
    // 1,500 calls over tiers [0,1000) at 0.01 and [1000,∞) at 0.005; base 100 (FULL).
    const upcoming = expectSuccess(await org.test.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming.lines).toEqual([
      expect.objectContaining({ type: 'BASE', quantity: '1', amount: r30(100) }),
      expect.objectContaining({ type: 'USAGE', metric_key: 'api_calls', quantity: r30(1500), amount: r30('12.5') }),
    ]);
    expect(upcoming.total).toBe(r30('112.5'));
    expectError(await org.live.get(`/subscriptions/${sub.id}/upcoming_invoice`), 404);
  });

  it('stores none of a batch refused for a subscription canceled since the service last checked it', async () => {
    const kept = expectSuccess(await subscribe(org.test, plan), 201);
    const gone = expectSuccess(await subscribe(org.test, plan), 201);
    // An event of `gone` makes the service remember it; then it is canceled.
    expectSuccess(await org.test.post('/usage_events', { id: `first-${gone.id}`, subscription_id: gone.id, metric_key: 'api_calls', value: 1 }), 201);
    expectSuccess(await org.test.post(`/subscriptions/${gone.id}/cancel`, {}));
    const both = [
      { id: `a-${kept.id}`, subscription_id: kept.id, metric_key: 'api_calls', value: 500 },
      { id: `b-${gone.id}`, subscription_id: gone.id, metric_key: 'api_calls', value: 1 },
    ];
    expectError(await org.test.post('/usage_events/batch', { events: both }), 400, { field: 'events.1.subscription_id' });
    // All or none: the first event was not stored with the refusal, so sent alone it is new and counted once.
    const usage = async () =>
      expectSuccess(await org.test.get(`/subscriptions/${kept.id}/upcoming_invoice`)).lines.find((l: { type: string }) => l.type === 'USAGE');
    expect(await usage()).toMatchObject({ metric_key: 'api_calls', quantity: r30(0) });
    expect(expectSuccess(await org.test.post('/usage_events/batch', { events: [both[0]] }))).toMatchObject({ created: 1, duplicates: 0 });
    expect(await usage()).toMatchObject({ quantity: r30(500) });
  });

  it('shows active subscriptions and monthly recurring revenue on the dashboard', async () => {
    const own = await createOrg();
    const monthly = await recurringPlan(own);
    const yearlyProduct = expectSuccess(
      await own.test.post(
        '/products',
        productBody({ schemas: [recurringSchema({ currency: 'EUR', base_price: '120', interval_type: 'YEAR', configurations: [] })] }),
      ),
    ).id;
    const yearly = { productId: yearlyProduct, schemaId: expectSuccess(await own.test.get(`/products/${yearlyProduct}`)).schemas[0].id };
    expectSuccess(await subscribe(own.test, monthly, { quantity: 3 }), 201);
    expectSuccess(await subscribe(own.test, yearly), 201);
    const gone = expectSuccess(await subscribe(own.test, monthly), 201);
    expectSuccess(await own.test.post(`/subscriptions/${gone.id}/cancel`, {}));
    const dashboard = expectSuccess(await own.test.post('/analytics/dashboard', { period: 'last_7_days' }));
    // 3 x 100 USD a month, and 120 EUR a year = 10 EUR a month.
    const eurUsd = convert(10, 'EUR', 'USD');
    expect(dashboard.subscriptions).toEqual({
      active_count: 2,
      past_due_count: 0,
      canceled_count: 1,
      mrr_usd: r30(eurUsd.add(300)),
      mrr_by_currency: [
        { currency: 'USD', mrr: r30(300), mrr_usd: r30(300) },
        { currency: 'EUR', mrr: r30(10), mrr_usd: r30(eurUsd) },
      ],
    });
    expect(expectSuccess(await own.live.post('/analytics/dashboard', { period: 'last_7_days' })).subscriptions).toMatchObject({
      active_count: 0,
      mrr_usd: r30(0),
    });
  });
});
