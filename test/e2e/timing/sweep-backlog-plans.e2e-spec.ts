import type { Client } from 'pg';
import { sweepDueSql } from '../../../src/modules/invoices/persistence/invoice-sql';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** Expired, unswept invoices of the organization with a burst of abandoned ones. */
const BACKLOG = 20_000;
const PEERS = 3;
const PEER_DUE = 5;
/** One organization's share (WORKER_ORG_BATCH's default) and the sweeper's batch. */
const CAP = 50;
const LIMIT = 200;

/**
 * The sweeper's batch beside one organization's burst of expired invoices, planned as the service's sessions
 * plan it (generic plans), before any ANALYZE of the filled table and after one: it reads about its share of
 * the burst (through the PENDING invoices' expiry index by organization and mode), not every expired invoice,
 * and still takes every other organization's, or only the one organization's mode a moved test clock names.
 */
describe("the invoice sweeper's batch beside one organization's burst of expired invoices", () => {
  let fresh: FreshDatabase;
  let db: Client;
  let busy: string;
  let peers: string[];

  beforeAll(async () => {
    fresh = await startFreshDatabase('Burst', { INVOICE_SWEEP_SECONDS: '0' });
    db = fresh.db;
    busy = fresh.org.id;
    peers = await peerOrganizations(db, busy, PEERS);
    const owners = [...Array<string>(BACKLOG).fill(busy), ...peers.flatMap((p) => Array<string>(PEER_DUE).fill(p))];
    await db.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, rates_snapshot_id, rates_taken_at,
                             expires_at, created_at, updated_at)
       SELECT 'invoice_' || md5(o || n), o, 'test', 'PENDING', 'USD', 10, 10, '{}', r.id, r.taken_at,
              now() - interval '2 hours' + n * interval '1 millisecond', now() - interval '3 hours', now() - interval '3 hours'
         FROM unnest($1::text[]) WITH ORDINALITY AS t(o, n), (SELECT id, taken_at FROM rate_snapshots ORDER BY taken_at DESC LIMIT 1) r`,
      [owners],
    );
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const invoicesRead = (plan: PlanNode) => rowsReadFrom(plan, 'invoices');

  async function batches() {
    const all = await genericPlan(db, sweepDueSql(false), [new Date(), 60, LIMIT, CAP]);
    expect(all['Actual Rows']).toBe(CAP + PEERS * PEER_DUE);
    expect(invoicesRead(all)).toBeLessThan(4 * (CAP + PEERS * PEER_DUE));
    const one = await genericPlan(db, sweepDueSql(true), [new Date(), 60, LIMIT, CAP, peers[1], 'test']);
    expect(one['Actual Rows']).toBe(PEER_DUE);
    expect(invoicesRead(one)).toBeLessThan(4 * (CAP + PEERS * PEER_DUE));
  }

  it('reads about its share of the burst, before any ANALYZE of the filled table', async () => {
    await batches();
  });

  it('and after one', async () => {
    await db.query(`ANALYZE invoices`);
    await batches();
  });
});
