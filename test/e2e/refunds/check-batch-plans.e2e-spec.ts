import type { Client } from 'pg';
import { FAIR_REFUNDS_SQL } from '../../../src/modules/refunds/persistence/refund-batches-sql';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** SENT refunds of the organization whose reported transactions never confirm. */
const BACKLOG = 20_000;
const PEERS = 3;
const PEER_DUE = 5;
/** One organization's share (WORKER_ORG_BATCH's default) and the payout worker's batch. */
const CAP = 50;
const LIMIT = 100;

/**
 * The payout worker's batch of SENT refunds beside one organization's backlog of them, planned as the service's
 * sessions plan it (generic plans), before any ANALYZE of the filled table and after one: it reads about its
 * share of the backlog (through the SENT refunds' index by organization and mode), not every SENT refund, stamps
 * only the batch, and still takes every other organization's refunds, the never-checked first.
 */
describe("the payout worker's batch of SENT refunds beside one organization's backlog", () => {
  let fresh: FreshDatabase;
  let db: Client;
  let busy: string;
  let peers: string[];

  beforeAll(async () => {
    fresh = await startFreshDatabase('Backlog', { REFUND_CHECK_SECONDS: '0' });
    db = fresh.db;
    busy = fresh.org.id;
    peers = await peerOrganizations(db, busy, PEERS);
    const owners = [...Array<string>(BACKLOG).fill(busy), ...peers.flatMap((p) => Array<string>(PEER_DUE).fill(p))];
    // Every refund was checked a minute ago but the peers' last ones, never checked.
    await db.query(
      `INSERT INTO refunds (id, organization_id, mode, invoice_id, status, currency, amount, amount_usd, rate, rate_usd, rates_snapshot_id,
                            claim_token, expires_at, provider_id, network, address, tx_hash, sent_at, checked_at, created_at, updated_at)
       SELECT 'refund_' || lpad(n::text, 8, '0'), o, 'test', 'invoice_x', 'SENT', 'USD', 1, 1, 'invoice', 1, 'rates_x',
              md5(o || n), now() + interval '1 day', 'prov_ethereum_usdt', 'ETHEREUM', '0x' || repeat('1', 40), '0x' || md5(o || n),
              now() - interval '1 hour' + n * interval '1 millisecond',
              CASE WHEN o <> $2 AND n % $3 = 0 THEN NULL ELSE now() - interval '1 minute' END, now(), now()
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n)`,
      [owners, busy, PEER_DUE],
    );
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const refundsRead = (plan: PlanNode) => rowsReadFrom(plan, 'refunds');

  async function batches() {
    const plan = await genericPlan(db, FAIR_REFUNDS_SQL.sent, [CAP, LIMIT]);
    expect(plan['Actual Rows']).toBe(CAP + PEERS * PEER_DUE);
    expect(refundsRead(plan)).toBeLessThan(4 * (CAP + PEERS * PEER_DUE));
    // The batch's order: each organization's first turn (the peers' never-checked refunds before their checked ones), then the next.
    await db.query('BEGIN');
    try {
      const { rows } = await db.query(FAIR_REFUNDS_SQL.sent, [CAP, LIMIT]);
      const first = rows.slice(0, PEERS + 1).map((r: { organization_id: string }) => r.organization_id);
      expect(new Set(first)).toEqual(new Set([busy, ...peers]));
      const peerFirst = rows.filter((r: { organization_id: string }) => r.organization_id === peers[0]).map((r: { id: string }) => r.id);
      // Its never-checked refund (its last sent) first, then the others by the time they were sent.
      const peerIds = Array.from({ length: PEER_DUE }, (_, i) => `refund_${String(BACKLOG + i + 1).padStart(8, '0')}`);
      expect(peerFirst).toEqual([peerIds[PEER_DUE - 1], ...peerIds.slice(0, PEER_DUE - 1)]);
      const { rows: stamped } = await db.query(`SELECT count(*)::int AS n FROM refunds WHERE checked_at >= now()`);
      expect(stamped[0].n).toBe(CAP + PEERS * PEER_DUE);
    } finally {
      await db.query('ROLLBACK');
    }
  }

  it('reads about its share of the backlog, before any ANALYZE of the filled table', async () => {
    await batches();
  });

  it('and after one', async () => {
    await db.query(`ANALYZE refunds`);
    await batches();
  });
});
