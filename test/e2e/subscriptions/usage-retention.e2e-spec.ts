import { Client } from 'pg';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { runWorkerPass } from '../../support/workers';
import { API_CALL_TIERS, readSubscription, recurringProduct, schedulerPass, ts } from './subscription-helpers';

const DAY_MS = 86_400_000;
/** Five periods of four weeks: how far back the subscription below is moved. */
const BACK_DAYS = 140;

/** `p202607`: the suffix of the month partition holding `at` (UTC). */
const monthSuffix = (at: Date) => `p${at.toISOString().slice(0, 7).replace('-', '')}`;

/**
 * Usage events that stay small (docs/performance.md): one partition a month of the events' timestamp,
 * created ahead by the kernel's retention job and dropped once older than USAGE_EVENTS_RETENTION_DAYS,
 * but never while a period still to be invoiced bills usage in it; the callers' ids stay unique across
 * months, and after a month is dropped. Old usage is made the way a long-running subscription has it: the
 * subscription (made today through the API) is moved five periods back in the database, as if it had
 * started then, and its events are then sent through the API with their old timestamps.
 */
describe('usage events retention', () => {
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let sub: { id: string };
  let oldAt: Date;

  const db = <T>(work: (c: Client) => Promise<T>) => withClient(service.databaseUrl!, work);
  const partitions = () =>
    db(async (c) => {
      const { rows } = await c.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_events'::regclass`);
      return rows.map((r: { relname: string }) => r.relname);
    });
  const stored = (id: string) =>
    db(async (c) => (await c.query(`SELECT tableoid::regclass::text AS part FROM usage_events WHERE id = $1 AND organization_id = $2`, [id, org.id])).rows);
  const send = (body: Record<string, unknown>) => org.test.post('/usage_events', { subscription_id: sub.id, metric_key: 'api_calls', ...body });

  beforeAll(async () => {
    service = await startIsolatedService({
      USAGE_EVENTS_RETENTION_DAYS: '30',
      PARTITION_RETENTION_SECONDS: '0',
      SUBSCRIPTIONS_TICK_SECONDS: '0',
      INVOICE_SWEEP_SECONDS: '0',
    });
    org = await service.createOrg('Usage retention');
    const { productId, schemaId } = await recurringProduct(
      org.test,
      { payment_type: 'ARREARS', renew_type: 'ANNIVERSARY', billing_type: 'FULL', interval_type: 'WEEK', interval_count: 4 },
      API_CALL_TIERS,
    );
    sub = expectSuccess(await org.test.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'ops@example.com' }), 201);
    await db((c) =>
      c.query(
        `UPDATE subscriptions SET starts_at = starts_at - $2::interval, current_period_start = current_period_start - $2::interval,
                current_period_end = current_period_end - $2::interval, next_invoice_at = next_invoice_at - $2::interval WHERE id = $1`,
        [sub.id, `${BACK_DAYS} days`],
      ),
    );
    const started = (await readSubscription(org.test, sub.id)).starts_at as string;
    oldAt = new Date(new Date(`${started.replace(' ', 'T')}Z`).getTime() + DAY_MS);
  }, 90_000);
  afterAll(async () => service?.stop());

  it('keeps months ready ahead and a repeated id a repeat across months', async () => {
    await runWorkerPass(org.test, 'partition-retention');
    const names = await partitions();
    const now = new Date();
    for (let k = 0; k <= 3; k++) expect(names).toContain(`usage_events_${monthSuffix(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1)))}`);

    const first = expectSuccess(await send({ id: 'old-1', value: 5, timestamp: ts(oldAt) }), 201);
    // Its month had no partition: it waits in the default one until the job gives its month one.
    expect(await stored('old-1')).toEqual([{ part: 'usage_events_default' }]);
    expect(expectSuccess(await send({ id: 'old-1', value: 7, timestamp: ts(now) }), 200)).toEqual(first);
    const recent = expectSuccess(await send({ id: 'new-1', value: 1, timestamp: ts(now) }), 201);
    expect(expectSuccess(await send({ id: 'new-1', value: 9, timestamp: ts(oldAt) }), 200)).toEqual(recent);
  });

  it('keeps a month past retention while a period still to be invoiced bills it, and drops it once that period is invoiced', async () => {
    await runWorkerPass(org.test, 'partition-retention');
    // Moved into its month's partition, past retention, and kept: the first period's invoice is still to come.
    const oldMonth = `usage_events_${monthSuffix(oldAt)}`;
    expect(await partitions()).toContain(oldMonth);
    expect(await stored('old-1')).toEqual([{ part: oldMonth }]);
    // The check reads none of the month's events (their latest per subscription is kept in usage_months): a pass
    // keeps the month while another transaction holds its partition, without waiting for it.
    const months = () => db(async (c) => (await c.query(`SELECT last_usage FROM usage_months WHERE subscription_id = $1 ORDER BY month`, [sub.id])).rows);
    expect((await months())[0].last_usage).toEqual(oldAt);
    const holder = new Client({ connectionString: service.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${oldMonth} IN ACCESS EXCLUSIVE MODE`);
      const pass = Promise.resolve(runWorkerPass(org.test, 'partition-retention'));
      const waiting = async () => {
        for (;;) {
          const { rows } = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = $1::regclass AND NOT granted`, [oldMonth]);
          if (rows[0].n > 0) return 'waited for the month' as const;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const first = await Promise.race([pass, waiting()]);
      await holder.query('ROLLBACK');
      expect(first).not.toBe('waited for the month');
      await pass;
    } finally {
      await holder.end();
    }
    expect(await partitions()).toContain(oldMonth);
    const upcoming = expectSuccess(await org.test.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    expect(upcoming.lines.map((l: { description: string }) => l.description)).toEqual(expect.arrayContaining([expect.stringMatching(/API calls, 5 units/)]));

    // The scheduler issues the five periods due since.
    for (let pass = 0; pass < 10; pass++) {
      const s = await readSubscription(org.test, sub.id);
      if (s.next_invoice_at === null || new Date(`${String(s.next_invoice_at).replace(' ', 'T')}Z`).getTime() > Date.now()) break;
      await schedulerPass(org.test)();
    }
    const after = await readSubscription(org.test, sub.id);
    expect(after.latest_invoice_id).toEqual(expect.stringMatching(/^invoice_/));

    await runWorkerPass(org.test, 'partition-retention');
    expect(await partitions()).not.toContain(oldMonth);
    // The month's row went with it; this month's stays.
    expect((await months()).map((r) => r.last_usage)).toEqual([expect.any(Date)]);
    expect((await months())[0].last_usage.getTime()).toBeGreaterThan(oldAt.getTime());
    expect(await stored('old-1')).toEqual([]);
    expect(await stored('new-1')).toHaveLength(1);
    // Its id is still known: sent again, it is a repeat, not new usage.
    const repeat = await send({ id: 'old-1', value: 7, timestamp: ts(new Date()) });
    expect(repeat.status).toBe(200);
    expect(await stored('old-1')).toEqual([]);
  });
});
