import { Client, ClientConfig, Pool } from 'pg';
import { SETTLING_SQL } from '../../../src/modules/payments/persistence/invoice-payments-sql';
import { dataSourceOptions } from '../../../src/shared/db/data-source';
import { expectSuccess } from '../../support/envelope';
import type { IsolatedService } from '../../support/isolated';
import { FreshDatabase, nodesOf, PlanNode, startFreshDatabase } from '../../support/plans';

const LIFETIME_SECONDS = 2;

/**
 * A session keeps each prepared statement's plan until a table it reads is analyzed or altered. On a
 * payments table analyzed while empty, the settlement's read of an invoice's payments is planned as a
 * whole-table scan, and without anything analyzing the table again (autovacuum off or behind) that plan
 * would last as long as the connection. The pool replaces connections older than
 * DB_CONNECTION_LIFETIME_SECONDS; the next session plans against the table as it has grown.
 */
describe('connection lifetime (DB_CONNECTION_LIFETIME_SECONDS)', () => {
  let service: IsolatedService;
  let db: Client;
  let org: FreshDatabase['org'];
  let url: string;

  beforeAll(async () => {
    ({ service, db, org } = await startFreshDatabase('Long-lived sessions', { DB_CONNECTION_LIFETIME_SECONDS: String(LIFETIME_SECONDS) }));
    url = service.databaseUrl!;
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
  });

  const servicePids = async (): Promise<number[]> =>
    (
      await db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'invoicing-api' AND pid <> pg_backend_pid() ORDER BY pid`,
      )
    ).rows.map((r: { pid: number }) => r.pid);

  it("replaces the service's connections once they are that old, and keeps serving", async () => {
    expectSuccess(await org.test.post('/invoices/list', { limit: 1 }));
    const first = await servicePids();
    expect(first.length).toBeGreaterThan(0);
    let remaining = first;
    for (let waited = 0; remaining.length > 0 && waited < 15_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      const now = new Set(await servicePids());
      remaining = first.filter((pid) => now.has(pid));
    }
    expect(remaining).toEqual([]);
    expectSuccess(await org.test.post('/invoices/list', { limit: 1 }));
    const later = await servicePids();
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((pid) => first.includes(pid))).toEqual([]);
  }, 30_000);

  it('a plan made while payments was empty is made again by the next connection, once the table has grown', async () => {
    // Nothing but this test analyzes payments here, even where autovacuum is on: its ANALYZE would
    // make every session plan again.
    await db.query('ALTER TABLE payments SET (autovacuum_enabled = false)');
    await db.query('ANALYZE payments');
    expect((await db.query(`SELECT reltuples FROM pg_class WHERE relname = 'payments'`)).rows[0].reltuples).toBe(0);
    const pool = (lifetimeSeconds: number): Pool =>
      new Pool({ connectionString: url, ...(dataSourceOptions(url, 1, true, lifetimeSeconds).extra as ClientConfig) });
    const kept = pool(0);
    const replaced = pool(1);
    /** The session's plan of the settlement's read (prepared under its name, as the service sends it), and the session. */
    const settlingPlan = async (p: Pool): Promise<{ pid: number; scan: string }> => {
      const c = await p.connect();
      try {
        const values = [org.id, 'test', 'invoice_not_there'];
        await c.query({ name: 'payment_settling', text: SETTLING_SQL, values });
        const { rows } = await c.query(`EXPLAIN (FORMAT JSON) EXECUTE payment_settling(${values.map((v) => c.escapeLiteral(v)).join(', ')})`);
        const plan = (rows[0]['QUERY PLAN'][0] as { Plan: PlanNode }).Plan;
        const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const scan = nodesOf(plan).map((n) => n['Node Type']);
        return { pid, scan: scan.join(' > ') };
      } finally {
        c.release();
      }
    };
    try {
      const keptBefore = await settlingPlan(kept);
      const replacedBefore = await settlingPlan(replaced);
      expect([keptBefore.scan, replacedBefore.scan]).toEqual(['Seq Scan', 'Seq Scan']);

      // About 20 pages of one organization's payments: enough that a plan made now walks the invoice's index.
      await db.query(`SET session_replication_role = replica`);
      await db.query(
        `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                               happened_at, created_at, updated_at)
         SELECT 'payment_grown_' || g, $1, 'test', 'prov_bitcoin_btc', 'invoice_grown_' || g, 'BITCOIN', 1, 1, 'rates_bundled_20261120', 'PENDING',
                now(), now(), now()
           FROM generate_series(1, 1000) g`,
        [org.id],
      );
      await db.query(`SET session_replication_role = DEFAULT`);
      await new Promise((r) => setTimeout(r, 1_500));

      const keptAfter = await settlingPlan(kept);
      const replacedAfter = await settlingPlan(replaced);
      // The connection kept for ever still scans the whole table; the replaced one found its index.
      expect(keptAfter).toEqual({ pid: keptBefore.pid, scan: 'Seq Scan' });
      expect(replacedAfter.pid).not.toBe(replacedBefore.pid);
      expect(replacedAfter.scan).toMatch(/Index Scan|Bitmap/);
      expect(replacedAfter.scan).not.toContain('Seq Scan');
    } finally {
      await kept.end();
      await replaced.end();
    }
  }, 30_000);
});
