/**
 * Seeds invoices at scale and measures the list query on them.
 *
 *   npx tsc -p tsconfig.json && DATABASE_URL=postgres://... node dist/bench/seed-invoices.js --invoices 1000000
 *
 * Runs the migrations, then writes N invoices spread over 100 organizations (90% test mode, 10%
 * live), each with one PAYMENT_INTENT item and its three calculation lines, with set-based SQL
 * (generate_series) in batches. Then it times the service's own list code (InvoicesRepository.list)
 * for a filtered first page and prints EXPLAIN ANALYZE of the statements it runs. Use a throwaway
 * database: the rows are real.
 */
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import type { OrgId } from '../src/shared/ids/ids';
import { Money } from '../src/shared/money/money';
import { InvoicesRepository } from '../src/modules/invoices/persistence/invoices.repository';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

export const ORGS = 100;
const BATCH = 100_000;

/**
 * Writes invoices invoice_bench_<n> up to `total` (continuing after those already there) over the
 * organizations org_bench_001..100, each with one PAYMENT_INTENT item and its three calculation
 * lines. The organizations are created when missing. The tables are left as a bulk load leaves
 * them, without statistics or visibility map: `vacuumAnalyzeSeeded` is the caller's to run.
 */
export async function seedInvoices(ds: DataSource, total: number, log: (line: string) => void): Promise<void> {
  await ds.query(
    `INSERT INTO organizations (id, name, created_at)
           SELECT 'org_bench_' || lpad(g::text, 3, '0'), 'Bench org ' || g, now() FROM generate_series(1, $1) g
           ON CONFLICT (id) DO NOTHING`,
    [ORGS],
  );
  const already = Number((await ds.query(`SELECT count(*)::int AS n FROM invoices WHERE id LIKE 'invoice_bench_%'`))[0].n);
  const started = Date.now();
  for (let from = already + 1; from <= total; from += BATCH) {
    const to = Math.min(total, from + BATCH - 1);
    await ds.transaction(async (m) => {
      // Invoice g: organization g % 100; mode, status, currency, price and customer drawn
      // independently from hashes of g (10% live, six statuses, five currencies, prices 0..999.99
      // with the USD value the same for simplicity, 20000 customers); created 30 s apart going back.
      await m.query(
        `
        INSERT INTO invoices (id, organization_id, mode, status, substatus, currency, price, price_usd, customer_email, metadata,
                              redirect_url, rates_snapshot_id, rates_taken_at, created_at, updated_at)
        SELECT 'invoice_bench_' || lpad(g::text, 9, '0'),
               'org_bench_' || lpad((g % ${ORGS} + 1)::text, 3, '0'),
               CASE WHEN abs(hashint4(g + 1)) % 10 = 0 THEN 'live' ELSE 'test' END,
               (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[abs(hashint4(g + 2)) % 6 + 1],
               NULL,
               (ARRAY['USD','EUR','USDT','BITCOIN','ETHEREUM'])[abs(hashint4(g + 3)) % 5 + 1],
               (abs(hashint4(g + 4)) % 100000) / 100.0, (abs(hashint4(g + 4)) % 100000) / 100.0,
               'customer' || (abs(hashint4(g + 5)) % 20000) || '@example.com',
               jsonb_build_object('order_id', g::text),
               NULL, NULL, NULL,
               now() - g * interval '30 seconds', now() - g * interval '30 seconds'
          FROM generate_series($1::int, $2::int) g`,
        [from, to],
      );
      await m.query(
        `
        INSERT INTO invoice_items (id, organization_id, mode, invoice_id, type, currency, product_id, billing_schema_id,
                                   payment_intent_id, price, quantity, position, status, exclude_reason, created_at, updated_at)
        SELECT 'invoice_item_bench_' || substr(i.id, 15), i.organization_id, i.mode, i.id, 'PAYMENT_INTENT', i.currency, NULL, NULL,
               'pi_bench_' || substr(i.id, 15), i.price, 1, 0, 'INCLUDED', NULL, i.created_at, i.created_at
          FROM invoices i
         WHERE i.id BETWEEN 'invoice_bench_' || lpad($1::text, 9, '0') AND 'invoice_bench_' || lpad($2::text, 9, '0')`,
        [from, to],
      );
      await m.query(
        `
        INSERT INTO invoice_calculations (id, organization_id, mode, invoice_id, invoice_item_id, title, calculation_type, idx, position,
                                          currency, initial_price, price_delta, price, details, created_at, updated_at)
        SELECT 'invoice_calc_bench_' || substr(i.id, 15) || '_' || s.n, i.organization_id, i.mode, i.id,
               CASE WHEN s.n = 0 THEN 'invoice_item_bench_' || substr(i.id, 15) END,
               (ARRAY['Payment intent','Total','Total in USD'])[s.n + 1],
               (ARRAY['PAYMENT_INTENT','TOTAL','TOTAL_USD'])[s.n + 1],
               0, s.n,
               CASE WHEN s.n = 2 THEN 'USD' ELSE i.currency END,
               CASE WHEN s.n = 0 THEN i.price ELSE 0 END,
               CASE WHEN s.n = 0 THEN 0 ELSE i.price END,
               i.price,
               CASE WHEN s.n = 0 THEN jsonb_build_object('payment_intent_id', 'pi_bench_' || substr(i.id, 15), 'currency', i.currency,
                                                         'price', i.price::text, 'quantity', 1)
                    ELSE '[]'::jsonb END,
               i.created_at, i.created_at
          FROM invoices i CROSS JOIN generate_series(0, 2) AS s(n)
         WHERE i.id BETWEEN 'invoice_bench_' || lpad($1::text, 9, '0') AND 'invoice_bench_' || lpad($2::text, 9, '0')`,
        [from, to],
      );
    });
    log(`seeded invoices ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}

/** The tables the seeds write. */
export const SEEDED_TABLES = ['invoices', 'invoice_items', 'invoice_calculations', 'payments'];

/**
 * What autovacuum would eventually do after the bulk load: the visibility map (index-only scans
 * without table visits) and the planner's statistics.
 */
export async function vacuumAnalyzeSeeded(ds: { query(sql: string): Promise<unknown> }): Promise<void> {
  for (const table of SEEDED_TABLES) await ds.query(`VACUUM ANALYZE ${table}`);
}

async function main(): Promise<void> {
  const total = Number.parseInt(arg('invoices', '1000000'), 10);
  const url = arg('database-url', process.env.DATABASE_URL ?? '');
  if (!url) throw new Error('set DATABASE_URL or --database-url (a throwaway database)');
  const ds = new DataSource({ ...dataSourceOptions(url, 4), entities: [`${__dirname}/../src/modules/**/*.record.js`] });
  await ds.initialize();
  await migrate(ds);
  const q = (sql: string, params: unknown[] = []) => ds.query(sql, params);
  await seedInvoices(ds, total, (line) => process.stdout.write(`${line}\n`));
  await vacuumAnalyzeSeeded(ds);
  const count = (await q(`SELECT count(*)::int AS n FROM invoices`))[0].n;
  process.stdout.write(`invoices in the database: ${count}\n`);

  // The filtered first page through the service's own code path.
  const repo = new InvoicesRepository();
  const scope = { organizationId: 'org_bench_042' as OrgId, mode: 'test' as const };
  const filter = {
    status: ['PENDING' as const, 'COMPLETED' as const],
    currency: ['USD' as const],
    priceUsdFrom: new Money('10'),
    priceUsdTo: new Money('900'),
    limit: 20,
    offset: 0,
  };
  const runs: number[] = [];
  let last = { rows: [] as unknown[], total: 0 };
  for (let i = 0; i < 10; i++) {
    const t = process.hrtime.bigint();
    last = (await repo.list(ds.manager, scope, filter))!;
    runs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  runs.sort((a, b) => a - b);
  process.stdout.write(
    `list (status 2 values, currency, price_usd range, first page of 20): ${last.rows.length} rows of ${last.total}; ` +
      `median ${runs[5].toFixed(2)} ms, best ${runs[0].toFixed(2)} ms, worst ${runs[9].toFixed(2)} ms\n`,
  );
  const unfiltered: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = process.hrtime.bigint();
    await repo.list(ds.manager, scope, { limit: 20, offset: 0 });
    unfiltered.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  unfiltered.sort((a, b) => a - b);
  process.stdout.write(`list (no filter, first page of 20): median ${unfiltered[5].toFixed(2)} ms\n`);
  const byEmail: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = process.hrtime.bigint();
    await repo.list(ds.manager, scope, { customerEmail: 'Customer42@example.com', limit: 20, offset: 0 });
    byEmail.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  byEmail.sort((a, b) => a - b);
  process.stdout.write(`list (customer_email, first page of 20): median ${byEmail[5].toFixed(2)} ms\n`);

  const where = `organization_id = $1 AND mode = $2 AND status = ANY($3::text[]) AND currency = ANY($4::text[])
                 AND price_usd >= $5::numeric AND price_usd <= $6::numeric`;
  const params = [scope.organizationId, scope.mode, filter.status, filter.currency, '10', '900'];
  for (const sql of [
    `SELECT count(*) FROM invoices WHERE ${where}`,
    `SELECT * FROM invoices WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
  ]) {
    const plan: Array<{ 'QUERY PLAN': string }> = await q(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
    process.stdout.write(`\n${sql.replace(/\s+/g, ' ')}\n${plan.map((p) => p['QUERY PLAN']).join('\n')}\n`);
  }
  await ds.destroy();
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
