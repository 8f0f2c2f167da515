import { Client } from 'pg';
import type { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { D, r30 } from '../../support/money';
import { runWorkerPass } from '../../support/workers';
import { databaseOf } from '../timing/timing-helpers';
import { moveClockTo, nextInvoice, parseTime, readSubscription, recurringProduct, schedulerPass, waitFor } from './subscription-helpers';

/** `n` followed by `zeros` zeros. */
const big = (n: string, zeros: number) => `${n}${'0'.repeat(zeros)}`;
const NINES_48 = '9'.repeat(48);

function calls(pricePerUnit: number) {
  return [{ starts_at: 0, ends_at: null, price_per_unit: pricePerUnit, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } }];
}

async function subscribe(api: Api, paymentType: 'ADVANCE' | 'ARREARS', pricePerUnit: number): Promise<any> {
  const { productId, schemaId } = await recurringProduct(
    api,
    { payment_type: paymentType, renew_type: 'ANNIVERSARY', billing_type: 'FULL', interval_type: 'DAY' },
    calls(pricePerUnit),
  );
  return expectSuccess(await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'big@example.com' }), 201);
}

async function storedEvents(service: IsolatedService, subscriptionId: string): Promise<string[]> {
  return withClient(databaseOf(service), async (c) => {
    const rows = await c.query<{ id: string }>(`SELECT id FROM usage_events WHERE subscription_id = $1 ORDER BY id`, [subscriptionId]);
    return rows.rows.map((r) => r.id);
  });
}

async function eventsOf(api: Api, type: string): Promise<any[]> {
  return expectSuccess(await api.post('/events', { type, limit: 100 })).items;
}

describe('usage past what an amount can hold', () => {
  let service: IsolatedService;
  let api: Api;
  beforeAll(async () => {
    // The scheduler never ticks: the tests run its passes (schedulerPass) and find them done.
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '0' });
    api = (await service.createOrg('Big usage')).test;
  });
  afterAll(async () => service?.stop());

  it("refuses an event that takes its period's aggregate past 48 integer digits, naming value, and stores nothing", async () => {
    const sub = await subscribe(api, 'ARREARS', 0);
    expectSuccess(await api.post('/usage_events', { id: 'e1', subscription_id: sub.id, metric_key: 'api_calls', value: NINES_48 }), 201);
    expectError(await api.post('/usage_events', { id: 'e2', subscription_id: sub.id, metric_key: 'api_calls', value: '1' }), 400, { field: 'value' });
    // In a batch: the event's path, and none of the batch is stored.
    expectError(
      await api.post('/usage_events/batch', {
        events: [
          { id: 'e3', subscription_id: sub.id, metric_key: 'api_calls', value: '0' },
          { id: 'e4', subscription_id: sub.id, metric_key: 'api_calls', value: '1' },
        ],
      }),
      400,
      { field: 'events.1.value' },
    );
    expect(await storedEvents(service, sub.id)).toEqual(['e1']);
  });

  it('refuses an event that takes the total of the invoice billing its period past 48 digits (the next period for ADVANCE)', async () => {
    // Each value and each aggregate fits; priced at 10 a unit, the invoice would not.
    for (const paymentType of ['ARREARS', 'ADVANCE'] as const) {
      const sub = await subscribe(api, paymentType, 10);
      // ADVANCE bills its first period at once: waited for, so the upcoming invoice is the next period's,
      // which carries this period's usage (before, the scheduler's pass and the read below raced).
      if (paymentType === 'ADVANCE') expect((await nextInvoice(api, sub.id, null, schedulerPass(api))).price).toBe(r30(10));
      const [ok, over] = [`ok-${paymentType}`, `over-${paymentType}`];
      expectSuccess(await api.post('/usage_events', { id: ok, subscription_id: sub.id, metric_key: 'api_calls', value: big('5', 46) }), 201);
      expectError(await api.post('/usage_events', { id: over, subscription_id: sub.id, metric_key: 'api_calls', value: big('5', 46) }), 400, {
        field: 'value',
      });
      expect(await storedEvents(service, sub.id)).toEqual([ok]);
      const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
      // The period's usage, priced at 10 a unit, and the base price: ARREARS at this period's end, ADVANCE at the next one's start.
      expect(upcoming.total).toBe(r30(new D(big('5', 47)).add(10)));
    }
  });

  it('refuses an event whose invoice would be worth more than 48 integer digits of USD, in a currency worth more than a dollar', async () => {
    const created = expectSuccess(
      await api.post('/products', {
        name: 'Bitcoin plan',
        description: 'Metered in bitcoin',
        metadata: {},
        schemas: [
          {
            name: 'Daily',
            description: 'Daily',
            currency: 'BITCOIN',
            type: 'RECURRING',
            base_price: 1,
            interval_type: 'DAY',
            interval_count: 1,
            payment_type: 'ARREARS',
            renew_type: 'ANNIVERSARY',
            billing_type: 'FULL',
            configurations: calls(1),
          },
        ],
      }),
    );
    const product = expectSuccess(await api.get(`/products/${created.id}`));
    const sub = expectSuccess(
      await api.post('/subscriptions', { product_id: created.id, billing_schema_id: product.schemas[0].id, customer_email: 'btc@example.com' }),
      201,
    );
    // 10^42 bitcoin is worth less than 10^48 USD at today's rates; 10^44 more is not, though it has 45 digits of bitcoin.
    expectSuccess(await api.post('/usage_events', { id: 'btc-ok', subscription_id: sub.id, metric_key: 'api_calls', value: big('1', 42) }), 201);
    const refused = await api.post('/usage_events', { id: 'btc-over', subscription_id: sub.id, metric_key: 'api_calls', value: big('1', 44) });
    expectError(refused, 400, { field: 'value' });
    expect(refused.body.validator.value).toContain('in USD');
    expect(await storedEvents(service, sub.id)).toEqual(['btc-ok']);
    // The invoice the period will get is one pricing can make.
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming.total).toBe(r30(new D(big('1', 42)).add(1)));
  });

  it('checks concurrent events of one subscription against each other: one is stored, the other refused', async () => {
    const sub = await subscribe(api, 'ARREARS', 0);
    const value = big('6', 47);
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) => api.post('/usage_events', { id, subscription_id: sub.id, metric_key: 'api_calls', value })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400]);
    for (const refused of answers.filter((a) => a.status === 400)) expect(Object.keys(refused.body.validator)).toEqual(['value']);
    expect(await storedEvents(service, sub.id)).toHaveLength(1);
  });

  it("checks new usage against the subscription's running totals, never reading the period's events: a batch lands while their month is locked; the totals are every event's sum, max and count", async () => {
    const own = await service.createOrg('Running totals');
    const { productId, schemaId } = await recurringProduct(
      own.test,
      { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL', interval_type: 'YEAR' },
      calls(1),
    );
    const sub = expectSuccess(
      await own.test.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'totals@example.com' }),
      201,
    );
    const start = parseTime(sub.current_period_start);
    const at = (ms: number) => new Date(start.getTime() + ms).toISOString();
    // The months of the period have their partitions (the retention job makes this month's and the next ones).
    await runWorkerPass(own.test, 'partition-retention');
    const early = Array.from({ length: 100 }, (_, i) => ({
      id: `early-${i}`,
      subscription_id: sub.id,
      metric_key: 'api_calls',
      value: `${i}.5`,
      timestamp: at(60_000 + i),
    }));
    expectSuccess(await own.test.post('/usage_events/batch', { events: early }));
    const partitionOf = (id: string) =>
      withClient(
        databaseOf(service),
        async (c) => (await c.query(`SELECT tableoid::regclass::text AS part FROM usage_events WHERE id = $1`, [id])).rows[0].part as string,
      );
    const earlyMonth = await partitionOf('early-0');
    expect(earlyMonth).not.toBe('usage_events_default');

    // Another transaction holds the early events' month: any read of them waits for it.
    const holder = new Client({ connectionString: databaseOf(service) });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${earlyMonth} IN ACCESS EXCLUSIVE MODE`);
      // Forty days on, in the same (yearly) period and another month.
      const later = [{ id: 'later', subscription_id: sub.id, metric_key: 'api_calls', value: '1000', timestamp: at(40 * 86_400_000) }];
      const answered = Promise.resolve(own.test.post('/usage_events/batch', { events: later }));
      const waiting = async () => {
        for (;;) {
          const { rows } = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = $1::regclass AND NOT granted`, [earlyMonth]);
          if (rows[0].n > 0) return 'waited for the locked month' as const;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const first = await Promise.race([answered, waiting()]);
      await holder.query('ROLLBACK');
      expect(first).not.toBe('waited for the locked month');
      expectSuccess(await answered);
    } finally {
      await holder.end();
    }
    expect(await partitionOf('later')).not.toBe(earlyMonth);

    const totals = await withClient(
      databaseOf(service),
      async (c) =>
        (
          await c.query(
            `SELECT t.sum::text AS sum, t.max::text AS max, t.count::int AS count,
                  (SELECT sum(value)::text FROM usage_events WHERE subscription_id = $1) AS events_sum
             FROM usage_totals t WHERE t.subscription_id = $1 AND t.metric_key = 'api_calls'`,
            [sub.id],
          )
        ).rows,
    );
    expect(totals).toHaveLength(1);
    expect(new D(totals[0].sum).equals(new D(totals[0].events_sum))).toBe(true);
    expect(new D(totals[0].sum).equals(new D('5000').add(1000))).toBe(true);
    expect(new D(totals[0].max).equals(1000)).toBe(true);
    expect(totals[0].count).toBe(101);
    // Near the limit the period's own events decide, as before: the lifetime totals only clear the way.
    expectSuccess(await own.test.post('/usage_events', { id: 'near', subscription_id: sub.id, metric_key: 'api_calls', value: big('9', 47) }), 201);
    expectError(await own.test.post('/usage_events', { id: 'past', subscription_id: sub.id, metric_key: 'api_calls', value: big('9', 47) }), 400, {
      field: 'value',
    });
  });

  it("accepts an event whose period stays under the limit though the subscription's lifetime usage is past it: the totals only clear the way", async () => {
    // Daily periods, usage free: each period may hold just under 10^48 calls.
    const sub = await subscribe(api, 'ARREARS', 0);
    const start = parseTime(sub.current_period_start);
    const at = (ms: number) => new Date(start.getTime() + ms).toISOString();
    const event = (id: string, ms: number) => ({ id, subscription_id: sub.id, metric_key: 'api_calls', value: big('9', 47), timestamp: at(ms) });
    expectSuccess(await api.post('/usage_events', event('day-0', 60_000)), 201);
    // The next day's period: 1.8 x 10^48 in the subscription's life, 9 x 10^47 in the period.
    expectSuccess(await api.post('/usage_events', event('day-1', 86_400_000 + 60_000)), 201);
    expectSuccess(await api.post('/usage_events', event('day-2', 2 * 86_400_000 + 60_000)), 201);
    // A second event in one of those periods takes that period past it.
    expectError(await api.post('/usage_events', event('day-1-again', 86_400_000 + 120_000)), 400, { field: 'value' });
    expect(await storedEvents(service, sub.id)).toEqual(['day-0', 'day-1', 'day-2']);
  });

  it('a period invoice that cannot be issued is announced and never holds back later periods or other subscriptions', async () => {
    const own = await service.createOrg('Stuck period');
    const broken = await subscribe(own.test, 'ARREARS', 1);
    const fine = await subscribe(own.test, 'ARREARS', 0);
    // Usage stored before the check existed: two events whose sum (and price) no amount can hold.
    await withClient(databaseOf(service), async (c) => {
      for (const id of ['old-1', 'old-2']) {
        await c.query(
          `INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", created_at)
           VALUES ($1, 'test', $2, $3, 'api_calls', $4::numeric, NULL, $5, $5)`,
          [own.id, id, broken.id, big('6', 47), new Date(parseTime(broken.current_period_start).getTime() + 60_000)],
        );
      }
    });
    const firstEnd = parseTime(broken.current_period_end);
    await moveClockTo(own.test, firstEnd);
    // The other subscription due in the same pass is billed.
    expect(await nextInvoice(own.test, fine.id, null, schedulerPass(own.test))).toMatchObject({ subscription_id: fine.id, price: r30(10) });
    // The broken one moved on to its next period without an invoice, and the failure was sent.
    const failed = await waitFor(
      () => eventsOf(own.test, 'subscription.invoice_failed'),
      (items) => items.length > 0,
      undefined,
      schedulerPass(own.test),
    );
    expect(failed).toHaveLength(1);
    expect(failed[0].data.object).toMatchObject({
      subscription_id: broken.id,
      period_start: broken.current_period_start,
      period_end: broken.current_period_end,
      error: expect.any(String),
      subscription: { id: broken.id, status: 'ACTIVE' },
    });
    const moved = await readSubscription(own.test, broken.id);
    expect(moved).toMatchObject({ status: 'ACTIVE', latest_invoice_id: null, current_period_start: broken.current_period_end });

    // The next period is billed when it ends, though the first one still cannot be.
    await moveClockTo(own.test, parseTime(moved.current_period_end));
    const second = await nextInvoice(own.test, broken.id, null, schedulerPass(own.test));
    expect(second).toMatchObject({ subscription_id: broken.id, period_start: moved.current_period_start, price: r30(10) });
    // Retried on later passes (waited for until it has been tried again, not for a fixed time), it is announced once.
    const attemptsOf = () =>
      withClient(databaseOf(service), async (c) =>
        Number((await c.query(`SELECT attempts FROM subscription_invoices WHERE subscription_id = $1 AND period_index = 0`, [broken.id])).rows[0].attempts),
      );
    const attempts = await waitFor(attemptsOf, (n) => n > 1, undefined, schedulerPass(own.test));
    expect(await eventsOf(own.test, 'subscription.invoice_failed')).toHaveLength(1);
    expect(attempts).toBeGreaterThan(1);
  }, 90_000);
});
