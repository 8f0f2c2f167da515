/**
 * Payments at scale for the benchmark, with set-based SQL matching the payments table:
 * - `perOrgTotal` payments payment_bench_<n> over the invoices invoice_bench_* (two per invoice, in
 *   the invoice's organization and mode), created after their invoice;
 * - `dashboardTotal` payments of one organization (org_bench_dash, test mode, no invoice) spread over
 *   the last 365 days, for the analytics dashboard, and `dashboardInvoices` invoices of it over the
 *   same days (20,000 customers, six invoice states, 0.01..1000.00 USD), so the dashboard's invoice and
 *   customer sections have data of that size too.
 * Four statuses (80% COMPLETED, 10% PENDING, 5% FAILED, 5% CANCELLED), six providers, prices
 * 0.000001..1000 USD. Run inside withRollupsRebuiltAfter when the analytics rollups exist; like
 * seedInvoices it leaves the tables unvacuumed and unanalyzed (vacuumAnalyzeSeeded).
 */
import type { DataSource } from 'typeorm';

const BATCH = 100_000;
export const DASHBOARD_ORG = 'org_bench_dash';
const PROVIDERS = ['prov_ethereum_usdt', 'prov_tron_usdt', 'prov_bitcoin_btc', 'prov_ethereum_eth', 'prov_ethereum_usdc', 'prov_solana_sol'];
const CURRENCIES = ['USDT', 'USDT', 'BITCOIN', 'ETHEREUM', 'USDC', 'SOLANA'];

async function hasFunction(ds: DataSource, name: string): Promise<boolean> {
  return (await ds.query(`SELECT 1 FROM pg_proc WHERE proname = $1`, [name])).length > 0;
}

/**
 * Runs a bulk load with the tables' own triggers (the analytics rollups, when present) switched off,
 * then rebuilds the rollups of the given organizations in one pass each. Foreign keys stay checked.
 */
export async function withRollupsRebuiltAfter(ds: DataSource, orgs: string[], load: () => Promise<void>, log: (line: string) => void): Promise<void> {
  const rollups = await hasFunction(ds, 'analytics_rebuild');
  if (rollups) {
    await ds.query(`ALTER TABLE payments DISABLE TRIGGER USER`);
    await ds.query(`ALTER TABLE invoices DISABLE TRIGGER USER`);
  }
  try {
    await load();
  } finally {
    if (rollups) {
      await ds.query(`ALTER TABLE payments ENABLE TRIGGER USER`);
      await ds.query(`ALTER TABLE invoices ENABLE TRIGGER USER`);
    }
  }
  if (!rollups) return;
  const t = Date.now();
  for (const org of orgs) await ds.query(`SELECT analytics_rebuild($1)`, [org]);
  log(`analytics rollups rebuilt for ${orgs.length} organization(s) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

/**
 * Invoices `<prefix><g>` for g in from..to of one organization (test mode), spread over the last 365
 * days: state, price (0.01..1000.00 USD) and customer (one of 20,000) from hashes of g. Triggers are
 * the caller's business (bulk loads switch the rollups off and rebuild them after).
 */
export async function insertCustomerInvoices(
  db: { query(sql: string, params: unknown[]): Promise<unknown> },
  org: string,
  prefix: string,
  from: number,
  to: number,
): Promise<void> {
  await db.query(
    `
    INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, metadata, created_at, updated_at)
    SELECT $4 || lpad(g::text, 9, '0'), $3, 'test',
           CASE WHEN s < 60 THEN 'COMPLETED' WHEN s < 75 THEN 'PENDING' WHEN s < 85 THEN 'VOIDED'
                WHEN s < 90 THEN 'PROCESSING' WHEN s < 95 THEN 'WAITING_FOR_CONFIRMATIONS' ELSE 'PARTIALLY_PAID' END,
           'USD', p, p, 'customer' || (abs(hashint4(g + 5)) % 20000) || '@example.com', '{}'::jsonb, t, t
      FROM generate_series($1::int, $2::int) g,
           LATERAL (SELECT abs(hashint4(g + 2)) % 100 AS s, (abs(hashint4(g + 4)) % 100000 + 1) / 100.0 AS p,
                           now() - (abs(hashint4(g + 7)) % (365 * 86400)) * interval '1 second' AS t) x`,
    [from, to, org, prefix],
  );
}

export async function seedPayments(
  ds: DataSource,
  perOrgTotal: number,
  invoices: number,
  dashboardTotal: number,
  log: (line: string) => void,
  dashboardInvoices = 0,
): Promise<void> {
  const started = Date.now();
  for (let from = 1; from <= perOrgTotal; from += BATCH) {
    const to = Math.min(perOrgTotal, from + BATCH - 1);
    await ds.query(
      `
      INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                            idempotency_key, happened_at, created_at, updated_at)
      SELECT 'payment_bench_' || lpad(g::text, 9, '0'), i.organization_id, i.mode, ($4::text[])[k + 1], i.id, ($5::text[])[k + 1],
             a, a, 'rates_bundled_20261120',
             CASE WHEN s < 80 THEN 'COMPLETED' WHEN s < 90 THEN 'PENDING' WHEN s < 95 THEN 'FAILED' ELSE 'CANCELLED' END,
             NULL, i.created_at + interval '10 seconds', i.created_at + (g % 2 + 1) * interval '5 seconds', i.created_at + interval '10 seconds'
        FROM generate_series($1::int, $2::int) g
        JOIN invoices i ON i.id = 'invoice_bench_' || lpad(((g - 1) % $3::int + 1)::text, 9, '0'),
             LATERAL (SELECT abs(hashint4(g + 13)) % 6 AS k, abs(hashint4(g + 17)) % 100 AS s,
                             (abs(hashint4(g + 19)) % 1000000000 + 1) / 1000000.0 AS a) x`,
      [from, to, invoices, PROVIDERS, CURRENCIES],
    );
    log(`seeded payments ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  if (dashboardTotal > 0) {
    await ds.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Bench dashboard org', now()) ON CONFLICT (id) DO NOTHING`, [DASHBOARD_ORG]);
    for (let from = 1; from <= dashboardTotal; from += BATCH) {
      const to = Math.min(dashboardTotal, from + BATCH - 1);
      await ds.query(
        `
        INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                              idempotency_key, happened_at, created_at, updated_at)
        SELECT 'payment_dash_' || lpad(g::text, 9, '0'), $3, 'test', ($4::text[])[k + 1], NULL, ($5::text[])[k + 1],
               a, a, 'rates_bundled_20261120',
               CASE WHEN s < 80 THEN 'COMPLETED' WHEN s < 90 THEN 'PENDING' WHEN s < 95 THEN 'FAILED' ELSE 'CANCELLED' END,
               NULL, t, t, t
          FROM generate_series($1::int, $2::int) g,
               LATERAL (SELECT abs(hashint4(g + 13)) % 6 AS k, abs(hashint4(g + 17)) % 100 AS s,
                               (abs(hashint4(g + 19)) % 1000000000 + 1) / 1000000.0 AS a,
                               now() - (abs(hashint4(g + 23)) % (365 * 86400)) * interval '1 second' AS t) x`,
        [from, to, DASHBOARD_ORG, PROVIDERS, CURRENCIES],
      );
      log(`seeded dashboard payments ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    for (let from = 1; from <= dashboardInvoices; from += BATCH) {
      const to = Math.min(dashboardInvoices, from + BATCH - 1);
      await insertCustomerInvoices(ds, DASHBOARD_ORG, 'invoice_dash_', from, to);
      log(`seeded dashboard invoices ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
}
