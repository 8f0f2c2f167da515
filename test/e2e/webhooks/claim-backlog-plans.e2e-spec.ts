import type { Client } from 'pg';
import { newId } from '../../../src/shared/ids/ids';
import { CLAIM_DUE_SQL } from '../../../src/modules/webhooks/persistence/delivery-statements';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** Due deliveries of the organization with a backlog (an endpoint that answers slower than its events come). */
const BACKLOG = 20_000;
const PEERS = 3;
const PEER_DUE = 5;
/**
 * Due deliveries an endpoint queued before it was paused and enabled again (an older epoch: never sent, pending
 * until the dispatcher marks them cancelled), and those it queued since.
 */
const STALE = 20_000;
const FRESH = 5;
/** The claim's per-organization share (WORKER_ORG_BATCH) and batch (WEBHOOK_DISPATCH_BATCH), as the dispatcher passes them. */
const CAP = 20;
const LIMIT = 50;

/**
 * The dispatcher's claim beside one organization's backlog of due deliveries, and another's backlog queued
 * before its endpoint was paused (never sent), planned as the service's
 * sessions plan it (generic plans), before any ANALYZE of the filled tables and after one: it reads about its
 * share of the backlog's rows (through the pending deliveries' index by organization and mode), not every due
 * delivery, so a merchant's backlog does not slow every other merchant's webhooks; it still claims every
 * other organization's due deliveries, and none of an organization left out as busy.
 */
describe("the webhook claim beside one organization's backlog", () => {
  let fresh: FreshDatabase;
  let db: Client;
  let busy: string;
  let peers: string[];
  let stopped: string;

  beforeAll(async () => {
    fresh = await startFreshDatabase('Backlog', { WEBHOOK_DISPATCHER: 'false', INVOICE_SWEEP_SECONDS: '0' });
    db = fresh.db;
    busy = fresh.org.id;
    peers = await peerOrganizations(db, busy, PEERS);
    stopped = `${busy}_stopped`;
    await db.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Stopped', now())`, [stopped]);
    const orgs = [busy, ...peers, stopped];
    // The stopped organization's endpoint was paused (its epoch raised) and enabled again.
    await db.query(
      `INSERT INTO webhook_endpoints (id, organization_id, mode, url, event_types, secret, epoch, created_at)
       SELECT 'webhook_' || o, o, 'test', 'https://example.com/hook', '{*}', 'secret', CASE WHEN o = $2 THEN 1 ELSE 0 END, now()
         FROM unnest($1::text[]) o`,
      [orgs, stopped],
    );
    const owners = [
      ...Array<string>(BACKLOG).fill(busy),
      ...Array<string>(STALE + FRESH).fill(stopped),
      ...peers.flatMap((p) => Array<string>(PEER_DUE).fill(p)),
    ];
    const ids = owners.map(() => newId('event') as string);
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO events (id, organization_id, mode, type, data, created_at)
       SELECT id, o, 'test', 'invoice.created', '{"object":{}}', now() FROM unnest($1::text[], $2::text[]) AS t(id, o)`,
      [ids, owners],
    );
    // Due for a while: the backlog's oldest first, then the stopped endpoint's (its older epoch's first), the
    // peers' the newest of all.
    await db.query(
      `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at, endpoint_epoch)
       SELECT 'delivery_' || md5(id), o, 'test', 'webhook_' || o, id, 'pending', 1, now() - interval '1 hour' + n * interval '1 millisecond', now(),
              CASE WHEN o = $3 AND n <= $4 THEN 0 WHEN o = $3 THEN 1 ELSE 0 END
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(id, o, n)`,
      [ids, owners, stopped, BACKLOG + STALE],
    );
    await db.query('COMMIT');
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const deliveriesRead = (plan: PlanNode) => rowsReadFrom(plan, 'webhook_deliveries', { partitions: true });

  async function claims() {
    const all = await genericPlan(db, CLAIM_DUE_SQL, [LIMIT, 40_000, CAP, [], null]);
    expect(all['Actual Rows']).toBe(CAP + PEERS * PEER_DUE + FRESH);
    expect(deliveriesRead(all)).toBeLessThan(10 * CAP);
    const withoutBusy = await genericPlan(db, CLAIM_DUE_SQL, [LIMIT, 40_000, CAP, [`${busy} test`], null]);
    expect(withoutBusy['Actual Rows']).toBe(PEERS * PEER_DUE + FRESH);
    expect(deliveriesRead(withoutBusy)).toBeLessThan(10 * CAP);
    // The stopped endpoint's organization alone: its deliveries of the current epoch, none of the older backlog read.
    const stoppedOnly = await genericPlan(db, CLAIM_DUE_SQL, [LIMIT, 40_000, CAP, [], stopped]);
    expect(stoppedOnly['Actual Rows']).toBe(FRESH);
    expect(deliveriesRead(stoppedOnly)).toBeLessThan(10 * CAP);
    // An on-demand pass of one organization: its due deliveries only.
    const onePeer = await genericPlan(db, CLAIM_DUE_SQL, [LIMIT, 40_000, CAP, [], peers[0]]);
    expect(onePeer['Actual Rows']).toBe(PEER_DUE);
    expect(deliveriesRead(onePeer)).toBeLessThan(10 * CAP);
  }

  it('reads about its share of the backlog, before any ANALYZE of the filled tables', async () => {
    await claims();
  });

  it('and after one', async () => {
    await db.query(`ANALYZE webhook_deliveries`);
    await db.query(`ANALYZE events`);
    await claims();
  });
});
