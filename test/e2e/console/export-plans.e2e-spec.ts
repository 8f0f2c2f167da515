import type { Client } from 'pg';
import type { Scope } from '../../../src/shared/auth/request-context';
import { keysetPageStatement } from '../../../src/shared/db/keyset-page';
import { invoiceListRequest } from '../../../src/modules/invoices/persistence/invoice-list';
import { FreshDatabase, genericPlan, peerOrganizations, PlanNode, rowsReadFrom, startFreshDatabase } from '../../support/plans';

/** The organization's invoices, every one matching the export's filter. */
const ROWS = 20_000;
/** An export's page (EXPORT_BATCH). */
const PAGE = 500;
/** Other organizations of the same size, as on a real server: the plans reckon with one organization's share of the table. */
const PEERS = 10;

/**
 * A filtered export's later pages, planned as the service's sessions plan them (generic plans), before any
 * ANALYZE and after one: each reads about its page's rows from the cursor on, not every match again (an export
 * reads its pages without counting; reading every match for each page made its cost grow with the square of
 * its rows).
 */
describe("a filtered export's pages beside many matches", () => {
  let fresh: FreshDatabase;
  let db: Client;
  let scope: Scope;

  beforeAll(async () => {
    fresh = await startFreshDatabase('Exporter');
    db = fresh.db;
    scope = { organizationId: fresh.org.id, mode: 'test' } as Scope;
    const peers = await peerOrganizations(db, fresh.org.id, PEERS);
    await db.query(
      `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, metadata, created_at, updated_at)
       SELECT CASE WHEN o = $1 THEN 'invoice_export_' || lpad(g::text, 6, '0') ELSE 'invoice_' || o || '_' || g END, o, 'test', 'COMPLETED',
              'USD', 10, 10, 'payer@example.com', '{}'::jsonb, now() - g * interval '1 second', now()
         FROM unnest($3::text[]) o, generate_series(1, $2::int) g`,
      [fresh.org.id, ROWS, [fresh.org.id, ...peers]],
    );
  }, 120_000);
  afterAll(async () => {
    await fresh?.db.end();
    await fresh?.service.stop();
  });

  const invoicesRead = (plan: PlanNode) => rowsReadFrom(plan, 'invoices');

  async function pages() {
    // A page near the end of the export: the cursor is the last invoice of the page before.
    const startingAfter = `invoice_export_${String(ROWS - PAGE).padStart(6, '0')}`;
    for (const filter of [{ currency: ['USD' as never] }, { customerEmail: 'payer@example.com' }]) {
      const { text, params } = keysetPageStatement(invoiceListRequest(scope, { ...filter, startingAfter, limit: PAGE, offset: 0, countTotal: false }));
      const plan = await genericPlan(db, text, params);
      expect(plan['Actual Rows']).toBe(PAGE);
      expect(invoicesRead(plan)).toBeLessThan(4 * PAGE);
    }
  }

  it('each page reads its own rows, before any ANALYZE', async () => {
    await pages();
  });

  it('and after one', async () => {
    await db.query('ANALYZE invoices');
    await pages();
  });
});
