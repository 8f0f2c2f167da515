import type { Client } from 'pg';
import { CLAIM_UNISSUED_SQL, OPEN_PERIOD_INVOICES_SQL } from '../../../src/modules/subscriptions/persistence/period-batches-sql';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** Period invoices of the organization with many subscriptions, in each of the two states the workers read. */
const BURST = 20_000;
const PEERS = 3;
const PEER_DUE = 5;
/** One organization's share (WORKER_ORG_BATCH's default) and the workers' batch. */
const CAP = 50;
const LIMIT = 100;
/**
 * Rows a batch may read of the table: a few per row it takes (the skip scan, each line's read, the update's
 * lookups by key and the update itself count; the whole burst is 20,000 periods in each state).
 */
const READ_BOUND = 6 * (CAP + PEERS * PEER_DUE);

/**
 * The subscriptions workers' batches of period invoices beside one organization's burst of them (a renewal of
 * many subscriptions: as many periods to issue, then as many invoices open until paid), planned as the service's
 * sessions plan them (generic plans), before any ANALYZE of the filled table and after one: each reads about its
 * share of the burst, not every period, keeps its line's order, and still takes every other organization's.
 */
describe("the subscriptions workers' period batches beside one organization's burst", () => {
  let fresh: FreshDatabase;
  let db: Client;
  let busy: string;
  let peers: string[];

  beforeAll(async () => {
    fresh = await startFreshDatabase('Burst', { SUBSCRIPTIONS_TICK_SECONDS: '0' });
    db = fresh.db;
    busy = fresh.org.id;
    peers = await peerOrganizations(db, busy, PEERS);
    const owners = [...Array<string>(BURST).fill(busy), ...peers.flatMap((p) => Array<string>(PEER_DUE).fill(p))];
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO subscriptions (id, organization_id, mode, product_id, billing_schema_id, customer_email, quantity, status, currency,
                                  base_price, interval_type, interval_count, payment_type, renew_type, billing_type, starts_at,
                                  current_period_index, current_period_start, current_period_end, next_invoice_index, next_invoice_at,
                                  created_at, updated_at)
       SELECT 'subscription_' || lpad(n::text, 8, '0'), o, 'test', 'product_x', 'schema_x', 'payer@example.com', 1, 'ACTIVE', 'USD',
              10, 'MONTH', 1, 'ADVANCE', 'AUTO', 'FIXED', now() - interval '40 days',
              1, now() - interval '10 days', now() + interval '20 days', 2, NULL, now() - interval '40 days', now()
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n)`,
      [owners],
    );
    // Each subscription's period 0: issued, its invoice open (checked a minute ago, but the peers' last one, never checked);
    // its period 1: not issued yet, due for its first try (the busy organization's first one failed before and retries later, still due: at the back of its line).
    await db.query(
      `INSERT INTO subscription_invoices (subscription_id, period_start, period_end, period_index, organization_id, mode, invoice_id,
                                          created_at, attempts, retry_at, checked_at)
       SELECT 'subscription_' || lpad(n::text, 8, '0'), now() - interval '40 days', now() - interval '10 days', 0, o, 'test',
              'invoice_' || n, now() - interval '40 days' + n * interval '1 millisecond', 1, NULL,
              CASE WHEN o <> $2 AND n % $3 = 0 THEN NULL ELSE now() - interval '1 minute' END
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n)
       UNION ALL
       SELECT 'subscription_' || lpad(n::text, 8, '0'), now() - interval '10 days', now() + interval '20 days', 1, o, 'test', NULL,
              now() - interval '10 days' + n * interval '1 millisecond', CASE WHEN n = 1 THEN 1 ELSE 0 END,
              now() - interval '1 hour' + n * interval '1 millisecond' + CASE WHEN n = 1 THEN interval '30 minutes' ELSE interval '0' END,
              NULL
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n)`,
      [owners, busy, PEER_DUE],
    );
    await db.query('COMMIT');
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const periodsRead = (plan: PlanNode) => rowsReadFrom(plan, 'subscription_invoices');
  const subscription = (n: number) => `subscription_${String(n).padStart(8, '0')}`;
  /** The first peer's subscriptions, in the order they were made. */
  const peerSubscriptions = () => Array.from({ length: PEER_DUE }, (_, i) => subscription(BURST + i + 1));

  async function inRollback<T>(work: () => Promise<T>): Promise<T> {
    await db.query('BEGIN');
    try {
      return await work();
    } finally {
      await db.query('ROLLBACK');
    }
  }

  async function batches() {
    const now = new Date();
    const lease = new Date(now.getTime() + 60_000);
    const claim = await genericPlan(db, CLAIM_UNISSUED_SQL, [now, lease, LIMIT, CAP, now]);
    expect(claim['Actual Rows']).toBe(CAP + PEERS * PEER_DUE);
    expect(periodsRead(claim)).toBeLessThan(READ_BOUND);
    const open = await genericPlan(db, OPEN_PERIOD_INVOICES_SQL, [CAP, LIMIT]);
    expect(open['Actual Rows']).toBe(CAP + PEERS * PEER_DUE);
    expect(periodsRead(open)).toBeLessThan(READ_BOUND);

    // Which periods each line gives (an UPDATE's answer has no order): the busy organization's first share by
    // retry time, its failed one (due later) left for a later batch; every period of the peers.
    const claimed = await inRollback(async () => (await db.query(CLAIM_UNISSUED_SQL, [now, lease, LIMIT, CAP, now])).rows);
    const of = (org: string) =>
      claimed
        .filter((r: { organization_id: string }) => r.organization_id === org)
        .map((r: { subscription_id: string }) => r.subscription_id)
        .sort();
    expect(of(peers[0])).toEqual(peerSubscriptions());
    expect(of(busy)).toEqual(Array.from({ length: CAP }, (_, i) => subscription(i + 2)));
    // Open invoices: the never-checked first, then by age; the whole batch stamped.
    const checked = await inRollback(async () => {
      const { rows } = await db.query(OPEN_PERIOD_INVOICES_SQL, [CAP, LIMIT]);
      const { rows: stamped } = await db.query(`SELECT count(*)::int AS n FROM subscription_invoices WHERE checked_at >= now()`);
      expect(stamped[0].n).toBe(CAP + PEERS * PEER_DUE);
      return rows;
    });
    const peerChecked = checked
      .filter((r: { organization_id: string }) => r.organization_id === peers[0])
      .map((r: { subscription_id: string }) => r.subscription_id);
    const ids = peerSubscriptions();
    expect(peerChecked).toEqual([ids[PEER_DUE - 1], ...ids.slice(0, PEER_DUE - 1)]);
    expect(new Set(checked.slice(0, PEERS + 1).map((r: { organization_id: string }) => r.organization_id))).toEqual(new Set([busy, ...peers]));
  }

  it('read about their share of the burst, before any ANALYZE of the filled table', async () => {
    await batches();
  });

  it('and after one', async () => {
    await db.query(`ANALYZE subscription_invoices`);
    await batches();
  });
});
