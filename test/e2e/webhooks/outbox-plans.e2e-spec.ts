import type { Client } from 'pg';
import { eventListStatements, FIND_EVENT_SQL, FIRST_UNREAD_IN_RANGE_SQL } from '../../../src/modules/events/persistence/event-statements';
import {
  attemptListStatements,
  CANCEL_STALE_SQL,
  CANCELLING_DONE_SQL,
  CLAIM_DUE_SQL,
  FAN_OUT_TARGETS,
  PENDING_IN_RANGE_SQL,
} from '../../../src/modules/webhooks/persistence/delivery-statements';
import { countBound } from '../../../src/shared/db/bounded-count';
import { NEXT_EVENTS_SQL } from '../../../src/shared/events/commit-order';
import { FreshDatabase, genericPlan, nodesOf, PlanNode } from '../../support/plans';
import { startFreshDatabase } from '../../support/plans';
import { runWorkerPass } from '../../support/workers';

const ORGS = 40;
const EVENTS_PER_ORG = 400;
const MINUTE = 60_000;

/** Every relation a plan reads and how (`Seq Scan`, `Index Scan`, ...), with the index used. */
const scans = (plan: PlanNode): Array<{ node: string; relation: string; index?: string }> =>
  nodesOf(plan)
    .filter((n) => (n as { 'Relation Name'?: string })['Relation Name'] && n['Node Type'] !== 'ModifyTable')
    .map((n) => ({ node: n['Node Type'], relation: (n as { 'Relation Name'?: string })['Relation Name']!, index: n['Index Name'] }));

/**
 * The statements the events and webhooks modules send to the partitioned outbox and delivery log, planned
 * as the service's sessions plan them (generic plans, blind to the values) on a few months of rows of many
 * organizations: every partition that holds rows is read through an index (none is scanned whole), and a
 * statement given an event id (or a range of them) reads one partition.
 */
describe('outbox and delivery log plans on partitioned tables', () => {
  let fresh: FreshDatabase;
  let db: Client;
  let filled: Set<string>;
  let someEvent: { id: string; organization_id: string; mode: string };
  let monthBounds: { lower: string; upper: string; partition: string };

  const noWholeScanOfFilled = (plan: PlanNode) => {
    const whole = scans(plan).filter((s) => s.node === 'Seq Scan' && filled.has(s.relation));
    expect(whole).toEqual([]);
  };
  const relationsOf = (plan: PlanNode, prefix: string) => [...new Set(scans(plan).map((s) => s.relation))].filter((r) => r.startsWith(prefix));

  beforeAll(async () => {
    fresh = await startFreshDatabase('Outbox plans', {
      WEBHOOK_DISPATCHER: 'false',
      PARTITION_RETENTION_SECONDS: '0',
      EVENTS_RETENTION_DAYS: '0',
      WEBHOOK_DELIVERIES_RETENTION_DAYS: '0',
    });
    db = fresh.db;
    const orgs = Array.from({ length: ORGS }, (_, i) => `${fresh.org.id}_peer_${i}`);
    await db.query(`INSERT INTO organizations (id, name, created_at) SELECT unnest($1::text[]), 'Peer', now()`, [orgs]);
    await db.query(
      `INSERT INTO webhook_endpoints (id, organization_id, mode, url, event_types, secret, created_at)
       SELECT 'webhook_' || o, o, 'test', 'https://example.com/hook', '{*}', 'secret', now() FROM unnest($1::text[]) o`,
      [orgs],
    );
    // Events of the ~100 days before this month (three or four whole months), ids carrying their time, as the
    // outbox writes them. Not up to now: early in a month its partition would hold a few rows, which the planner
    // rightly reads whole.
    const span = 100 * 24 * 60;
    await db.query(
      `INSERT INTO events (id, organization_id, mode, type, data, created_at)
       SELECT 'event_' || substr(lpad(to_hex(ms), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(ms), 12, '0'), 9, 4) || '-7'
                || substr(md5(o || g), 1, 3) || '-8' || substr(md5(o || g), 4, 3) || '-' || substr(md5(o || g), 7, 12),
              o, 'test', CASE WHEN g % 3 = 0 THEN 'invoice.created' ELSE 'payment.created' END, '{"object":{}}', to_timestamp(ms / 1000.0)
         FROM unnest($1::text[]) o, generate_series(1, $2::int) g,
              LATERAL (SELECT ((extract(epoch FROM date_trunc('month', now())) * 1000)::bigint - ((g * $3::int / $2::int) * $4::bigint) - (hashtext(o) & 1023)) AS ms) t`,
      [orgs, EVENTS_PER_ORG, span, MINUTE],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
       SELECT 'delivery_' || md5(id), organization_id, 'test', 'webhook_' || organization_id, id,
              CASE WHEN hashtext(id) % 50 = 0 THEN 'pending' ELSE 'succeeded' END, 1,
              CASE WHEN hashtext(id) % 50 = 0 THEN now() END, created_at
         FROM events WHERE organization_id = ANY ($1::text[])`,
      [orgs],
    );
    await db.query(
      `INSERT INTO webhook_attempts (id, organization_id, mode, endpoint_id, delivery_id, event_id, attempt_number, url, succeeded, duration_ms, created_at)
       SELECT 'attempt_' || md5(id), organization_id, 'test', endpoint_id, id, event_id, 1, 'https://example.com/hook', status = 'succeeded', 5, created_at
         FROM webhook_deliveries WHERE organization_id = ANY ($1::text[])`,
      [orgs],
    );
    // The retention job gives each past month its partition (the rows waited in the default ones).
    await runWorkerPass(fresh.org.test, 'partition-retention');
    // What autovacuum would have done by now on tables this size.
    await db.query(`ANALYZE events`);
    await db.query(`ANALYZE webhook_deliveries`);
    await db.query(`ANALYZE webhook_attempts`);
    const parts = await db.query(`
      SELECT tableoid::regclass::text AS part FROM events GROUP BY 1
      UNION SELECT tableoid::regclass::text FROM webhook_deliveries GROUP BY 1
      UNION SELECT tableoid::regclass::text FROM webhook_attempts GROUP BY 1`);
    filled = new Set(parts.rows.map((r: { part: string }) => r.part));
    someEvent = (await db.query(`SELECT id, organization_id, mode FROM events WHERE organization_id = $1 ORDER BY id LIMIT 1 OFFSET 50`, [orgs[7]])).rows[0];
    const part = (await db.query(`SELECT tableoid::regclass::text AS part FROM events WHERE id = $1`, [someEvent.id])).rows[0].part as string;
    const bound = (
      await db.query(
        `SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)')) AS b FROM pg_class c WHERE c.relname = $1`,
        [part],
      )
    ).rows[0].b as string[];
    monthBounds = { lower: bound[0], upper: bound[1], partition: part };
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  it('spreads the rows over several month partitions (the premise)', () => {
    expect([...filled].filter((p) => p.startsWith('events_p')).length).toBeGreaterThanOrEqual(3);
    expect(monthBounds.partition).toMatch(/^events_p\d{6}$/);
  });

  it("lists an organization's events, all or by type and time, and counts them, through the list indexes", async () => {
    for (const filter of [
      { limit: 20, offset: 0 },
      { limit: 20, offset: 0, types: ['invoice.created'], createdFrom: new Date(Date.now() - 3 * 86_400_000) },
    ]) {
      const { count, page, params } = eventListStatements(someEvent.organization_id, 'test', filter);
      const counted = await genericPlan(db, count, [...params, countBound(filter)]);
      noWholeScanOfFilled(counted);
      const paged = await genericPlan(db, page, [...params, filter.limit, filter.offset]);
      noWholeScanOfFilled(paged);
      expect(
        scans(paged)
          .filter((s) => filled.has(s.relation))
          .every((s) => /created_at/.test(s.index ?? '')),
      ).toBe(true);
    }
    // The console's events of one invoice and its payments: through an index, none scanned whole.
    const byObject = { limit: 20, offset: 0, objectIds: ['invoice_1', 'payment_1'] };
    const { page, params } = eventListStatements(someEvent.organization_id, 'test', byObject);
    const plan = await genericPlan(db, page, [...params, byObject.limit, byObject.offset]);
    noWholeScanOfFilled(plan);
    expect(
      scans(plan)
        .filter((s) => filled.has(s.relation))
        .every((s) => Boolean(s.index)),
    ).toBe(true);
  });

  it('reads one event by id from its month only', async () => {
    const plan = await genericPlan(db, FIND_EVENT_SQL, [someEvent.organization_id, 'test', someEvent.id]);
    expect(scans(plan).map((s) => [s.relation, s.index])).toEqual([[monthBounds.partition, `${monthBounds.partition}_pkey`]]);
  });

  it("reads the durable handlers' next events in commit order through the commit-order index", async () => {
    const cursor = (await db.query(`SELECT transaction_id::text AS tx, position::text AS pos FROM events ORDER BY transaction_id, position LIMIT 1 OFFSET 100`))
      .rows[0];
    const plan = await genericPlan(db, NEXT_EVENTS_SQL, [cursor.tx, cursor.pos, ['*'], 100]);
    noWholeScanOfFilled(plan);
    expect(
      scans(plan)
        .filter((s) => filled.has(s.relation))
        .every((s) => /transaction_id_position/.test(s.index ?? '')),
    ).toBe(true);
  });

  it("checks a month for unread events and pending deliveries in that month's partition only", async () => {
    const cursor = (await db.query(`SELECT transaction_id::text AS tx, position::text AS pos FROM events ORDER BY transaction_id, position LIMIT 1`)).rows[0];
    const unread = await genericPlan(db, FIRST_UNREAD_IN_RANGE_SQL, [monthBounds.lower, monthBounds.upper, cursor.tx, cursor.pos]);
    expect(relationsOf(unread, 'events')).toEqual([monthBounds.partition]);
    const pending = await genericPlan(db, PENDING_IN_RANGE_SQL, [monthBounds.lower, monthBounds.upper]);
    expect(relationsOf(pending, 'webhook_deliveries')).toEqual([monthBounds.partition.replace('events_', 'webhook_deliveries_')]);
  });

  it("lists an endpoint's attempts, and one event's, through their indexes (one event's from its month only)", async () => {
    const endpoint = `webhook_${someEvent.organization_id}`;
    const all = attemptListStatements(someEvent.organization_id, 'test', endpoint);
    noWholeScanOfFilled(await genericPlan(db, all.count, [...all.params, countBound({ limit: 20, offset: 0 })]));
    noWholeScanOfFilled(await genericPlan(db, all.page, [...all.params, 20, 0]));
    const one = attemptListStatements(someEvent.organization_id, 'test', endpoint, someEvent.id);
    const plan = await genericPlan(db, one.page, [...one.params, 20, 0]);
    expect(relationsOf(plan, 'webhook_attempts')).toEqual([monthBounds.partition.replace('events_', 'webhook_attempts_')]);
    expect(relationsOf(plan, 'events')).toEqual([monthBounds.partition]);
  });

  it("claims due deliveries and finds each event's deliveries for the fan-out through indexes", async () => {
    noWholeScanOfFilled(await genericPlan(db, CLAIM_DUE_SQL, [20, 40_000, 50, ['org_busy'], null], { analyze: false }));
    await db.query('SET plan_cache_mode = force_generic_plan');
    await db.query('DEALLOCATE ALL');
    await db.query(`PREPARE fan_out AS ${FAN_OUT_TARGETS}`);
    const { rows } = await db.query(
      `EXPLAIN (FORMAT JSON) EXECUTE fan_out(ARRAY[$1], ARRAY[$2], ARRAY['test'], ARRAY['invoice.created'], ARRAY[now()], ARRAY[NULL::text])`.replace(
        /\$(\d)/g,
        (_, i: string) => db.escapeLiteral([someEvent.id, someEvent.organization_id][Number(i) - 1]),
      ),
    );
    noWholeScanOfFilled((rows[0]['QUERY PLAN'][0] as { Plan: PlanNode }).Plan);
  });

  it("cancels a stopped endpoint's older deliveries, and checks that none is left, through its pending deliveries' index", async () => {
    const endpoint = `webhook_${someEvent.organization_id}`;
    const cancel = await genericPlan(db, CANCEL_STALE_SQL, [endpoint, 1, 5000, 'endpoint disabled', new Date()], { analyze: false });
    noWholeScanOfFilled(cancel);
    expect(scans(cancel).some((s) => s.relation.startsWith('webhook_deliveries') && /stale|epoch/.test(s.index ?? ''))).toBe(true);
    noWholeScanOfFilled(await genericPlan(db, CANCELLING_DONE_SQL, [endpoint], { analyze: false }));
  });
});
