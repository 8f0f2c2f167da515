import type { Client } from 'pg';
import type { Scope } from '../../../src/shared/auth/request-context';
import { keysetPageStatement, KeysetPageRequest } from '../../../src/shared/db/keyset-page';
import { parseAmount } from '../../../src/shared/money/money';
import { invoiceListRequest } from '../../../src/modules/invoices/persistence/invoice-list';
import { paymentListRequest } from '../../../src/modules/payments/persistence/payment-list';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { genericPlan, nodesOf, PlanNode } from '../../support/plans';

/** Invoices and payments of the organization under test, and of each of its peers. */
const ROWS = 3_000;
const OTHER_ORGS = 30;

/** The node a node reads its rows from (not an InitPlan it evaluates once, such as the list's held invoices). */
const outerOf = (n: PlanNode): PlanNode | undefined => n.Plans?.find((c) => c['Parent Relationship'] !== 'InitPlan');
/** Index walks that stop after a number of entries: a Limit straight over an index scan (no sort between). */
const stoppingWalks = (plan: PlanNode): string[] =>
  nodesOf(plan)
    .filter((n) => n['Node Type'] === 'Limit' && /^Index (Only )?Scan$/.test(outerOf(n)?.['Node Type'] ?? ''))
    .map((n) => outerOf(n)!['Index Name']!);
const indexesOf = (plan: PlanNode): string[] => [...(plan['Index Name'] ? [plan['Index Name']] : []), ...(plan.Plans ?? []).flatMap(indexesOf)];

/**
 * The plan of the statement the service sends, planned the way the service's sessions plan (once,
 * without the values: plan_cache_mode=force_generic_plan), not run.
 */
const listPlan = (db: Client, request: KeysetPageRequest): Promise<PlanNode> => {
  const { text, params } = keysetPageStatement(request);
  return genericPlan(db, text, params, { analyze: false });
};

/** Rows an index-only scan of the plan had to check in the table (the visibility map did not vouch for them). */
const heapFetches = (plan: PlanNode): number => nodesOf(plan).reduce((sum, n) => sum + Number(n['Heap Fetches'] ?? 0), 0);

const genericPlanIndexes = async (db: Client, request: KeysetPageRequest): Promise<string[]> => indexesOf(await listPlan(db, request));

/**
 * A list filtered on status and on an amount range is found through the status index, whatever the
 * values: the sessions' generic plans would otherwise always take the amount index (they price any
 * two-sided range at 0.5% of the rows) and walk most of a large organization's invoices.
 */
describe('list plans for status and amount filters on a large organization', () => {
  // A service and database of their own: other test files writing into a shared database keep pages out of
  // the visibility map while these plans are read, and an index-only scan then checks rows in the table.
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;
  const testDatabaseUrl = () => service.databaseUrl!;

  afterAll(async () => {
    await service?.stop();
  });

  beforeAll(async () => {
    service = await startIsolatedService();
    org = await service.createOrg();
    await withClient(testDatabaseUrl(), async (db) => {
      // Other organizations of about the same size around it, as on a real server: the plan reckons
      // with an average organization's share of the table.
      const others = Array.from({ length: OTHER_ORGS }, (_, i) => `${org.id}_peer_${i}`);
      await db.query(`INSERT INTO organizations (id, name, created_at) SELECT unnest($1::text[]), 'Peer', now()`, [others]);
      await db.query(
        `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, created_at, updated_at)
         SELECT 'invoice_peer_' || o || '_' || g, o, 'test', (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING'])[g % 4 + 1],
                'USD', (g % 1000) + 1, (g % 1000) + 1, '{}'::jsonb, now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM unnest($1::text[]) o, generate_series(1, $2::int) g`,
        [others, ROWS],
      );
      await db.query(
        `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                               idempotency_key, happened_at, created_at, updated_at)
         SELECT 'payment_peer_' || o || '_' || g, o, 'test', 'prov_bitcoin_btc', NULL, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
                'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
                NULL, now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM unnest($1::text[]) o, generate_series(1, $2::int) g`,
        [others, ROWS],
      );
      await db.query(
        `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, metadata, created_at, updated_at)
         SELECT 'invoice_plan_' || $1 || '_' || g, $1, 'test',
                (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[g % 6 + 1],
                'USD', (g % 1000) + 1, (g % 1000) + 1, NULL, '{}'::jsonb,
                now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM generate_series(1, $2::int) g`,
        [org.id, ROWS],
      );
      await db.query(
        `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                               idempotency_key, happened_at, created_at, updated_at)
         SELECT 'payment_plan_' || $1 || '_' || g, $1, 'test', 'prov_bitcoin_btc', NULL, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
                'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
                NULL, now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM generate_series(1, $2::int) g`,
        [org.id, ROWS],
      );
      // Vacuumed as autovacuum keeps a live table: with the visibility map unset (rows just inserted)
      // every index-only scan is priced as visiting the table, and plans differ from a server's.
      await db.query('VACUUM (ANALYZE) invoices');
      await db.query('VACUUM (ANALYZE) payments');
    });
  }, 120_000);

  const scope = () => ({ organizationId: org.id, mode: 'test' }) as Scope;
  const range = { priceUsdFrom: parseAmount('10'), priceUsdTo: parseAmount('900'), limit: 20, offset: 0 };

  it('invoices: status with an amount range reads the status index, an amount range alone the amount index', async () => {
    const clock = { now: new Date(), monitoringMinutes: 60 };
    await withClient(testDatabaseUrl(), async (db) => {
      const both = await genericPlanIndexes(db, invoiceListRequest(scope(), { ...range, status: ['PENDING', 'COMPLETED'] }, clock));
      expect(both).toContain('invoices_status_cover2_idx');
      expect(both).not.toContain('invoices_price_usd_cover_idx');
      const amountOnly = await genericPlanIndexes(db, invoiceListRequest(scope(), range, clock));
      expect(amountOnly).toContain('invoices_price_usd_cover_idx');
    });
  });

  it("a status-filtered page and its total read the status index alone (index-only, after VACUUM ANALYZE), a reorg's held invoices through their own index", async () => {
    const clock = { now: new Date(), monitoringMinutes: 60 };
    await withClient(testDatabaseUrl(), async (db) => {
      for (const status of [['PENDING'], ['VOIDED', 'COMPLETED']] as Array<Array<'PENDING' | 'VOIDED' | 'COMPLETED'>>) {
        const { text, params } = keysetPageStatement(invoiceListRequest(scope(), { limit: 20, offset: 0, status }, clock));
        // The service's own background work (its workers' passes) may hold a snapshot as the set-up
        // vacuums, which keeps the newest pages out of the visibility map for a moment: vacuumed again
        // (a few times at most) until the map covers them, as autovacuum would on a server.
        let plan = await genericPlan(db, text, params, { analyze: true });
        for (let tries = 0; tries < 20 && heapFetches(plan) > 0; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          await db.query('VACUUM invoices');
          plan = await genericPlan(db, text, params, { analyze: true });
        }
        const scans = nodesOf(plan).filter((n) => n['Index Name'] === 'invoices_status_cover2_idx');
        expect(scans.length).toBeGreaterThan(0);
        expect(scans.map((n) => [n['Node Type'], n['Heap Fetches']])).toEqual(scans.map(() => ['Index Only Scan', 0]));
        expect(indexesOf(plan)).toContain('invoices_clock_held_idx');
      }
    });
  });

  it('payments: the same for the payments list', async () => {
    await withClient(testDatabaseUrl(), async (db) => {
      const both = await genericPlanIndexes(db, paymentListRequest(scope(), { ...range, status: ['COMPLETED'] }));
      expect(both).toContain('payments_status_cover_idx');
      expect(both).not.toContain('payments_price_usd_cover_idx');
      expect(await genericPlanIndexes(db, paymentListRequest(scope(), range))).toContain('payments_price_usd_cover_idx');
    });
  });

  it('a list of several statuses merges one newest-first walk per status instead of sorting every match', async () => {
    const clock = { now: new Date(), monitoringMinutes: 60 };
    await withClient(testDatabaseUrl(), async (db) => {
      for (const [request, walks] of [
        [invoiceListRequest(scope(), { ...range, status: ['PENDING', 'COMPLETED'] }, clock), 2],
        [invoiceListRequest(scope(), { limit: 20, offset: 40, status: ['VOIDED', 'PROCESSING', 'PARTIALLY_PAID'] }, clock), 4],
        [paymentListRequest(scope(), { ...range, status: ['COMPLETED', 'FAILED'] }), 2],
      ] as const) {
        const plan = await listPlan(db, request);
        // One walk per stored status (VOIDED also looks at PENDING invoices past their window), each
        // stopping after offset + limit + 1 entries, merged or sorted as a few dozen rows.
        const shape = { walks: stoppingWalks(plan), nodes: nodesOf(plan).map((n) => n['Node Type']) };
        expect(shape).toEqual({
          walks: Array(walks).fill(request.table === 'invoices' ? 'invoices_status_cover2_idx' : 'payments_status_cover_idx'),
          nodes: expect.not.arrayContaining(['CTE Scan']),
        });
      }
    });
  });

  it('pages of several statuses come newest first across the statuses, with offset and starting_after', async () => {
    const statuses = ['PENDING', 'COMPLETED', 'VOIDED'];
    const expected = await withClient(testDatabaseUrl(), async (db) =>
      (
        await db.query(
          `SELECT id FROM invoices WHERE organization_id = $1 AND mode = 'test' AND status = ANY($2) AND price_usd BETWEEN 100 AND 800
        ORDER BY created_at DESC, id DESC`,
          [org.id, statuses],
        )
      ).rows.map((r: { id: string }) => r.id),
    );
    expect(expected.length).toBeGreaterThan(700);
    const page = async (body: object) => {
      const answer = expectSuccess<{ total: number; has_more: boolean; items: Array<{ id: string }> }>(
        await org.test.post('/invoices/list', {
          status: statuses,
          price_usd_from: '100',
          price_usd_to: '800',
          ...body,
        }),
      );
      expect(answer.total).toBe(expected.length);
      return answer;
    };
    expect((await page({ limit: 50 })).items.map((i) => i.id)).toEqual(expected.slice(0, 50));
    expect((await page({ limit: 25, offset: 30 })).items.map((i) => i.id)).toEqual(expected.slice(30, 55));
    expect((await page({ limit: 10, offset: 5, starting_after: expected[39] })).items.map((i) => i.id)).toEqual(expected.slice(45, 55));
    const last = await page({ limit: 10, starting_after: expected[expected.length - 4] });
    expect(last.items.map((i) => i.id)).toEqual(expected.slice(-3));
    expect(last.has_more).toBe(false);

    const payments = await withClient(testDatabaseUrl(), async (db) =>
      (
        await db.query(
          `SELECT id FROM payments WHERE organization_id = $1 AND mode = 'test' AND status IN ('PENDING', 'FAILED')
        ORDER BY created_at DESC, id DESC`,
          [org.id],
        )
      ).rows.map((r: { id: string }) => r.id),
    );
    const paymentPage = expectSuccess<{ total: number; items: Array<{ id: string }> }>(
      await org.test.post('/payments', {
        status: ['PENDING', 'FAILED'],
        limit: 30,
        offset: 10,
        starting_after: payments[99],
      }),
    );
    expect(paymentPage.total).toBe(payments.length);
    expect(paymentPage.items.map((p) => p.id)).toEqual(payments.slice(110, 140));
  });

  it('the answers over HTTP match a direct count of the same invoices and payments', async () => {
    const invoices = expectSuccess<{ total: number; items: Array<{ status: string; price_usd: string }> }>(
      await org.test.post('/invoices/list', {
        status: ['PENDING', 'COMPLETED'],
        price_usd_from: '10',
        price_usd_to: '900',
        limit: 20,
      }),
    );
    const payments = expectSuccess<{ total: number; items: Array<{ status: string; price_usd: string }> }>(
      await org.test.post('/payments', {
        status: ['COMPLETED'],
        price_usd_from: '10',
        price_usd_to: '900',
        limit: 20,
      }),
    );
    const expected = await withClient(testDatabaseUrl(), async (db) => ({
      invoices: Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM invoices WHERE organization_id = $1 AND status IN ('PENDING', 'COMPLETED')
        AND price_usd BETWEEN 10 AND 900 AND (expires_at IS NULL OR expires_at > now())`,
            [org.id],
          )
        ).rows[0].n,
      ),
      payments: Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM payments WHERE organization_id = $1 AND status = 'COMPLETED'
        AND price_usd BETWEEN 10 AND 900`,
            [org.id],
          )
        ).rows[0].n,
      ),
    }));
    expect(expected.invoices).toBeGreaterThan(500);
    expect(invoices.total).toBe(expected.invoices);
    expect(payments.total).toBe(expected.payments);
    for (const i of invoices.items) {
      expect(['PENDING', 'COMPLETED']).toContain(i.status);
      expect(parseAmount(i.price_usd).gte(10) && parseAmount(i.price_usd).lte(900)).toBe(true);
    }
    expect(payments.items.every((p) => p.status === 'COMPLETED')).toBe(true);
  });
});
