import type { Client } from 'pg';
import type { Scope } from '../../../src/shared/auth/request-context';
import { keysetPageStatement, KeysetPageRequest } from '../../../src/shared/db/keyset-page';
import { parseAmount } from '../../../src/shared/money/money';
import { invoiceListRequest } from '../../../src/modules/invoices/persistence/invoice-list';
import { paymentListRequest } from '../../../src/modules/payments/persistence/payment-list';
import { testDatabaseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { withClient } from '../../support/pg';

/** Invoices and payments of the organization under test, and of each of its peers. */
const ROWS = 3_000;
const OTHER_ORGS = 30;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const indexesOf = (plan: PlanNode): string[] => [...(plan['Index Name'] ? [plan['Index Name']] : []), ...(plan.Plans ?? []).flatMap(indexesOf)];

/**
 * The indexes the plan of the statement the service sends would use, planned the way the service's
 * sessions plan (once, without the values: plan_cache_mode=force_generic_plan).
 */
async function genericPlanIndexes(db: Client, request: KeysetPageRequest): Promise<string[]> {
  const { text, params } = keysetPageStatement(request);
  await db.query('SET plan_cache_mode = force_generic_plan');
  await db.query('DEALLOCATE ALL');
  await db.query(`PREPARE list_page AS ${text}`);
  // EXECUTE takes its arguments as SQL values, not as bound parameters.
  const literal = (v: unknown): string => {
    if (v === null) return 'NULL';
    if (typeof v === 'number') return String(v);
    if (v instanceof Date) return db.escapeLiteral(v.toISOString());
    if (Array.isArray(v)) return `ARRAY[${v.map((e) => db.escapeLiteral(String(e))).join(', ')}]`;
    return db.escapeLiteral(String(v));
  };
  const { rows } = await db.query(`EXPLAIN (FORMAT JSON) EXECUTE list_page(${params.map(literal).join(', ')})`);
  return indexesOf((rows[0]['QUERY PLAN'][0] as { Plan: PlanNode }).Plan);
}

/**
 * A list filtered on status and on an amount range is found through the status index, whatever the
 * values: the sessions' generic plans would otherwise always take the amount index (they price any
 * two-sided range at 0.5% of the rows) and walk most of a large organization's invoices.
 */
describe('list plans for status and amount filters on a large organization', () => {
  let org: TestOrg;

  beforeAll(async () => {
    org = await createOrg();
    await withClient(testDatabaseUrl(), async (db) => {
      // Other organizations of about the same size around it, as on a real server: the plan reckons
      // with an average organization's share of the table.
      const others = Array.from({ length: OTHER_ORGS }, (_, i) => `${org.id}_peer_${i}`);
      await db.query(`INSERT INTO organizations (id, name, created_at) SELECT unnest($1::text[]), 'Peer', now()`, [others]);
      await db.query(
        `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, created_at, updated_at)
         SELECT 'invoice_peer_' || o || '_' || g, o, 'test', (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING'])[g % 4 + 1],
                'USD', (g % 1000) + 1, (g % 1000) + 1, '{}'::jsonb, now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM unnest($1::text[]) o, generate_series(1, $2::int) g`, [others, ROWS]);
      await db.query(
        `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                               idempotency_key, happened_at, created_at, updated_at)
         SELECT 'payment_peer_' || o || '_' || g, o, 'test', 'prov_bitcoin_btc', NULL, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
                'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
                NULL, now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM unnest($1::text[]) o, generate_series(1, $2::int) g`, [others, ROWS]);
      await db.query(
        `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, metadata, created_at, updated_at)
         SELECT 'invoice_plan_' || $1 || '_' || g, $1, 'test',
                (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[g % 6 + 1],
                'USD', (g % 1000) + 1, (g % 1000) + 1, NULL, '{}'::jsonb,
                now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM generate_series(1, $2::int) g`, [org.id, ROWS]);
      await db.query(
        `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                               idempotency_key, happened_at, created_at, updated_at)
         SELECT 'payment_plan_' || $1 || '_' || g, $1, 'test', 'prov_bitcoin_btc', NULL, 'BITCOIN', (g % 1000) + 1, (g % 1000) + 1,
                'rates_bundled_20261120', (ARRAY['COMPLETED','PENDING','FAILED','CANCELLED'])[g % 4 + 1],
                NULL, now() - g * interval '1 minute', now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM generate_series(1, $2::int) g`, [org.id, ROWS]);
      await db.query('ANALYZE invoices');
      await db.query('ANALYZE payments');
    });
  }, 60_000);

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

  it('payments: the same for the payments list', async () => {
    await withClient(testDatabaseUrl(), async (db) => {
      const both = await genericPlanIndexes(db, paymentListRequest(scope(), { ...range, status: ['COMPLETED'] }));
      expect(both).toContain('payments_status_cover_idx');
      expect(both).not.toContain('payments_price_usd_cover_idx');
      expect(await genericPlanIndexes(db, paymentListRequest(scope(), range))).toContain('payments_price_usd_cover_idx');
    });
  });

  it('the answers over HTTP match a direct count of the same invoices and payments', async () => {
    const invoices = expectSuccess<{ total: number; items: Array<{ status: string; price_usd: string }> }>(await org.test.post('/invoices/list', {
      status: ['PENDING', 'COMPLETED'], price_usd_from: '10', price_usd_to: '900', limit: 20,
    }));
    const payments = expectSuccess<{ total: number; items: Array<{ status: string; price_usd: string }> }>(await org.test.post('/payments', {
      status: ['COMPLETED'], price_usd_from: '10', price_usd_to: '900', limit: 20,
    }));
    const expected = await withClient(testDatabaseUrl(), async (db) => ({
      invoices: Number((await db.query(`SELECT count(*) AS n FROM invoices WHERE organization_id = $1 AND status IN ('PENDING', 'COMPLETED')
        AND price_usd BETWEEN 10 AND 900 AND (expires_at IS NULL OR expires_at > now())`, [org.id])).rows[0].n),
      payments: Number((await db.query(`SELECT count(*) AS n FROM payments WHERE organization_id = $1 AND status = 'COMPLETED'
        AND price_usd BETWEEN 10 AND 900`, [org.id])).rows[0].n),
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
