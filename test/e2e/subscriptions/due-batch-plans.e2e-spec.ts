import type { Client } from 'pg';
import { dueSubscriptionsSql } from '../../../src/modules/subscriptions/persistence/due-subscriptions-sql';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** Due renewals of the organization with a month-start burst. */
const BURST = 20_000;
/** Of those, renewals that failed before (their place is at the back of the line). */
const FAILED = 3;
const PEERS = 3;
const PEER_DUE = 5;
/** One organization's share (WORKER_ORG_BATCH's default) and the scheduler's batch. */
const CAP = 50;
const LIMIT = 100;

/**
 * The subscriptions scheduler's batch beside one organization's burst of due renewals, planned as the
 * service's sessions plan it (generic plans), before any ANALYZE of the filled table and after one: it reads
 * about its share of the burst, not every due subscription, keeps each line's order (never-failed ones by
 * due time, then the failed ones), and still takes every other organization's, or only the one
 * organization's mode a moved test clock names.
 */
describe("the subscriptions scheduler's batch beside one organization's burst of due renewals", () => {
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
    // Due since the start of the month, a millisecond apart; the burst's first FAILED failed a minute ago.
    await db.query(
      `INSERT INTO subscriptions (id, organization_id, mode, product_id, billing_schema_id, customer_email, quantity, status, currency,
                                  base_price, interval_type, interval_count, payment_type, renew_type, billing_type, starts_at,
                                  current_period_index, current_period_start, current_period_end, next_invoice_index, next_invoice_at,
                                  attempted_at, created_at, updated_at)
       SELECT 'subscription_' || lpad(n::text, 8, '0'), o, 'test', 'product_x', 'schema_x', 'payer@example.com', 1, 'ACTIVE', 'USD',
              10, 'MONTH', 1, 'ADVANCE', 'AUTO', 'FIXED', now() - interval '40 days',
              1, now() - interval '40 days', now() - interval '10 days', 2, now() - interval '1 hour' + n * interval '1 millisecond',
              CASE WHEN n <= $2 THEN now() - interval '1 minute' END, now() - interval '40 days', now()
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n)`,
      [owners, FAILED],
    );
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const subscriptionsRead = (plan: PlanNode) => rowsReadFrom(plan, 'subscriptions');

  async function batches() {
    const params = [new Date(), CAP, LIMIT, ['subscription_00000010']];
    const all = await genericPlan(db, dueSubscriptionsSql(false), params);
    expect(all['Actual Rows']).toBe(CAP + PEERS * PEER_DUE);
    expect(subscriptionsRead(all)).toBeLessThan(4 * (CAP + PEERS * PEER_DUE));
    const one = await genericPlan(db, dueSubscriptionsSql(true), [...params, peers[1], 'test']);
    expect(one['Actual Rows']).toBe(PEER_DUE);
    expect(subscriptionsRead(one)).toBeLessThan(4 * (CAP + PEERS * PEER_DUE));
    // The busy line's order: never-failed ones by due time (the left-out one skipped), the failed ones last.
    const { rows } = await db.query(dueSubscriptionsSql(true), [new Date(), CAP, LIMIT, ['subscription_00000010'], busy, 'test']);
    const ids = rows.map((r: { id: string }) => r.id);
    expect(ids).toHaveLength(CAP);
    expect(ids.slice(0, 3)).toEqual(['subscription_00000004', 'subscription_00000005', 'subscription_00000006']);
    expect(ids).not.toContain('subscription_00000010');
    expect(ids).not.toContain('subscription_00000001');
  }

  it('reads about its share of the burst, before any ANALYZE of the filled table', async () => {
    await batches();
  });

  it('and after one', async () => {
    await db.query(`ANALYZE subscriptions`);
    await batches();
  });
});
