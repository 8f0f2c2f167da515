import { aggregate, type AggregationType, type UsageSample } from '../../../src/modules/subscriptions/domain/usage';
import { Money } from '../../../src/shared/money/money';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { r30 } from '../../support/money';
import { clockNow, moveClockTo, parseTime, recurringProduct, schedulerPass, ts } from './subscription-helpers';

const TYPES: AggregationType[] = ['SUM', 'COUNT', 'MAX', 'UNIQUE_COUNT', 'LATEST'];
const metricKey = (type: AggregationType) => `m_${type.toLowerCase()}`;

/**
 * A period's usage is worked out by PostgreSQL (UsageEventsRepository.aggregate), not by reading every event
 * into the process: the upcoming invoice's quantities must be what domain/usage.ts `aggregate` says of the
 * same events, for every aggregation, on values where the two could part (1.5 and 1.50, events of one
 * millisecond, a late arrival with an earlier timestamp).
 */
describe('usage aggregates worked out by the database', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '0' });
  });
  afterAll(() => service?.stop());

  it('gives the quantities the domain definition gives, for each aggregation type', async () => {
    const api = (await service.createOrg('Aggregates')).test;
    const tiers = TYPES.map((type) => ({
      starts_at: 0,
      ends_at: null,
      price_per_unit: 1,
      metric: { metric_key: metricKey(type), name: `Metric ${type}`, aggregation_type: type },
    }));
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, tiers);
    const start = await clockNow(api);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'agg@example.com', starts_at: ts(start) }),
      201,
    );
    await moveClockTo(api, new Date(start.getTime() + 60_000), 0);
    const at = (seconds: number, ms = 0) => new Date(start.getTime() + seconds * 1000 + ms).toISOString();
    // Sent in this order (arrival order breaks LATEST's ties): the same millisecond twice, then an earlier
    // timestamp arriving last; 1.5 and 1.50 without a unique key, and a unique key sent twice.
    const events = [
      { value: '1.5', timestamp: at(10, 250) },
      { value: '1.50', timestamp: at(20) },
      { value: '2.25', timestamp: at(30, 500), unique_key: 'k1' },
      { value: '7', timestamp: at(30, 500), unique_key: 'k1' },
      { value: '0.000000000000000000000000000001', timestamp: at(25) },
      { value: '3', timestamp: at(5) },
    ];
    for (const type of TYPES) {
      for (const [i, e] of events.entries()) {
        expectSuccess(await api.post('/usage_events', { id: `${type}-${i}`, subscription_id: sub.id, metric_key: metricKey(type), ...e }), 201);
      }
    }
    const samples: UsageSample[] = events.map((e, i) => ({
      value: new Money(e.value),
      timestamp: new Date(e.timestamp),
      uniqueKey: e.unique_key ?? null,
      seq: BigInt(i),
    }));
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    const quantities = Object.fromEntries(
      (upcoming.lines as Array<{ type: string; metric_key: string; quantity: string }>)
        .filter((l) => l.type === 'USAGE')
        .map((l) => [l.metric_key, l.quantity]),
    );
    const expected = Object.fromEntries(TYPES.map((type) => [metricKey(type), r30(aggregate(type, samples))]));
    expect(quantities).toEqual(expected);
    // What the definition says of these events, spelled out.
    expect(expected).toEqual({
      m_sum: r30('15.250000000000000000000000000001'),
      m_count: r30(6),
      m_max: r30(7),
      m_unique_count: r30(4),
      m_latest: r30(7),
    });
  });

  it("breaks LATEST's ties of one millisecond by the order a batch sends its events, not by their ids", async () => {
    const api = (await service.createOrg('Batch order')).test;
    const tiers = [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric: { metric_key: 'seats', name: 'Seats', aggregation_type: 'LATEST' } }];
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, tiers);
    const start = await clockNow(api);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'seats@example.com', starts_at: ts(start) }),
      201,
    );
    await moveClockTo(api, new Date(start.getTime() + 60_000), 0);
    const at = new Date(start.getTime() + 30_000).toISOString();
    // Sent last: 5 seats. Ids in another order than the batch's.
    const events = [
      { id: 'seats-z', value: '7' },
      { id: 'seats-a', value: '3' },
      { id: 'seats-m', value: '5' },
    ].map((e) => ({ ...e, subscription_id: sub.id, metric_key: 'seats', timestamp: at }));
    expect(expectSuccess(await api.post('/usage_events/batch', { events }))).toMatchObject({ created: 3 });
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming.lines.find((l: { type: string }) => l.type === 'USAGE')).toMatchObject({ metric_key: 'seats', quantity: r30(5) });
  });

  it('answers a repeated event id with its first record after the subscription ended at period end (never 400)', async () => {
    const api = (await service.createOrg('Repeats after the end')).test;
    const tiers = [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric: { metric_key: 'calls', name: 'Calls', aggregation_type: 'SUM' } }];
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, tiers);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'repeat@example.com' }),
      201,
    );
    // Recorded without a timestamp; the answer is lost on the way, and the client retries later.
    const first = expectSuccess(await api.post('/usage_events', { id: 'retried', subscription_id: sub.id, metric_key: 'calls', value: '2' }), 201);
    expectSuccess(await api.post(`/subscriptions/${sub.id}/cancel`, { at_period_end: true }));
    await moveClockTo(api, parseTime(sub.current_period_end), 5);
    const again = await api.post('/usage_events', { id: 'retried', subscription_id: sub.id, metric_key: 'calls', value: '2' });
    expect(expectSuccess(again, 200)).toEqual(first);
    // In a batch beside a new event after the end, only the new one is refused.
    const batch = await api.post('/usage_events/batch', {
      events: [
        { id: 'retried', subscription_id: sub.id, metric_key: 'calls', value: '2' },
        { id: 'too-late', subscription_id: sub.id, metric_key: 'calls', value: '1' },
      ],
    });
    const refused = expectError(batch, 400, { field: 'events.1.subscription_id' });
    expect(Object.keys(refused.validator)).toEqual(['events.1.subscription_id']);
    expect(
      expectSuccess(await api.post('/usage_events/batch', { events: [{ id: 'retried', subscription_id: sub.id, metric_key: 'calls', value: '2' }] })),
    ).toMatchObject({
      created: 0,
      duplicates: 1,
      items: [first],
    });
  });

  it('refuses a new event in a period whose usage is invoiced already (400 naming timestamp), and still takes the current period', async () => {
    const api = (await service.createOrg('Late usage')).test;
    const tiers = [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric: { metric_key: 'calls', name: 'Calls', aggregation_type: 'SUM' } }];
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, tiers);
    const start = await clockNow(api);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'late@example.com', starts_at: ts(start) }),
      201,
    );
    const at = (seconds: number) => ts(new Date(start.getTime() + seconds * 1000));
    const first = expectSuccess(
      await api.post('/usage_events', { id: 'on-time', subscription_id: sub.id, metric_key: 'calls', value: '4', timestamp: at(10) }),
      201,
    );
    // The month ends and the scheduler invoices it, with its 4 calls.
    await moveClockTo(api, parseTime(sub.current_period_end), 5);
    await schedulerPass(api)();
    const invoiced = expectSuccess(await api.post('/invoices/list', {})).items as Array<{ id: string }>;
    expect(invoiced).toHaveLength(1);
    // An event of that month arriving now would be billed nowhere: refused, nothing stored.
    const late = await api.post('/usage_events', { id: 'late', subscription_id: sub.id, metric_key: 'calls', value: '3', timestamp: at(20) });
    expect(expectError(late, 400, { field: 'timestamp' }).validator.timestamp).toMatch(/invoiced already/);
    const stored = await withClient(
      service.databaseUrl!,
      async (c) => (await c.query(`SELECT count(*)::int AS n FROM usage_event_keys WHERE id = 'late'`)).rows[0].n,
    );
    expect(stored).toBe(0);
    // The event sent on time is still a repeat; the current month takes new usage.
    expect(
      expectSuccess(await api.post('/usage_events', { id: 'on-time', subscription_id: sub.id, metric_key: 'calls', value: '4', timestamp: at(10) }), 200),
    ).toEqual(first);
    expectSuccess(await api.post('/usage_events', { id: 'this-month', subscription_id: sub.id, metric_key: 'calls', value: '2' }), 201);
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming.lines.find((l: { type: string }) => l.type === 'USAGE')).toMatchObject({ quantity: r30(2) });
  });

  it('stamps an event sent without a timestamp when it is stored, under the lock the scheduler closes periods with, not when it arrived', async () => {
    const api = (await service.createOrg('Stamped on store')).test;
    const tiers = [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric: { metric_key: 'calls', name: 'Calls', aggregation_type: 'SUM' } }];
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL' }, tiers);
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'stamp@example.com' }),
      201,
    );
    await withClient(service.databaseUrl!, async (holder) => {
      // The subscription is held (as the scheduler holds it while it closes a period) when the event arrives.
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM subscriptions WHERE id = $1 FOR UPDATE`, [sub.id]);
      const arrived = await clockNow(api);
      const sent = Promise.resolve(api.post('/usage_events', { id: 'late-stamp', subscription_id: sub.id, metric_key: 'calls', value: '2' }));
      // Time for it to arrive and wait for the subscription.
      await new Promise((r) => setTimeout(r, 1500));
      // Meanwhile an hour passes on the organization's clock.
      expectSuccess(await api.post('/test_helpers/clock', { advance_seconds: 3600 }));
      await holder.query('COMMIT');
      const event = expectSuccess(await sent, 201);
      expect(parseTime(event.timestamp).getTime()).toBeGreaterThanOrEqual(arrived.getTime() + 3_600_000);
    });
  });
});
