/**
 * Seeds one organization with 1,000,000 payments and 300,000 invoices and measures the analytics
 * dashboard on it.
 *
 *   npm run -s build && npx tsc -p tsconfig.json && DATABASE_URL=postgres://... node dist/bench/seed-analytics.js
 *   options: --payments N --invoices N --requests N (per period, default 200)
 *
 * Use a throwaway database: the rows are real. Steps:
 * 1. Runs the migrations; creates the organization and a test key through the CLI (the service's own
 *    commands), or reuses the organization of an earlier run.
 * 2. Writes the invoices and payments with set-based SQL matching the schema (generate_series, in
 *    batches), spread over the last 365 days: 20,000 customers, six invoice states, the first 15
 *    catalog providers, four payment states. The rollup triggers are switched off for the bulk load
 *    and the organization's rollups are then rebuilt in one pass by analytics_rebuild(org), the same
 *    GROUP BY the triggers maintain row by row; the script checks the rebuilt totals against the
 *    raw tables.
 * 3. Measures what the triggers cost a write (single-row payment inserts and status updates, rolled
 *    back), then starts the built service on the database and times POST /analytics/dashboard for
 *    last_30_days, last_365_days, last_day and prev_last_365_days over HTTP (sequential requests
 *    after a warm-up; the first call builds the kept day windows), printing p50, p95, p99 and max,
 *    beside a baseline authenticated call (GET /auth/debug_token), and the same reads in process
 *    (the handler's one statement without HTTP). The machine's load average is printed with them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { buildDashboard } from '../src/modules/analytics/domain/dashboard';
import { keptWindowOf, windowOf } from '../src/modules/analytics/domain/period';
import { AnalyticsRepository } from '../src/modules/analytics/persistence/analytics.repository';
import { PROVIDER_CATALOG } from '../src/modules/providers/domain/catalog';
import type { OrgId } from '../src/shared/ids/ids';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import { insertCustomerInvoices } from './seed-payments';
import { freePort } from './process-tools';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const ORG_NAME = 'Analytics bench';
const BATCH = 100_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

function cli(url: string, ...args: string[]): any {
  const res = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const paymentsWanted = Number.parseInt(arg('payments', '1000000'), 10);
  const invoicesWanted = Number.parseInt(arg('invoices', '300000'), 10);
  const requests = Number.parseInt(arg('requests', '200'), 10);
  const url = arg('database-url', process.env.DATABASE_URL ?? '');
  if (!url) throw new Error('set DATABASE_URL or --database-url (a throwaway database)');
  // Bulk statements (and a migration backfilling rollups of existing rows) run past the service's statement timeout.
  const options = dataSourceOptions(url, 4);
  const ds = new DataSource({ ...options, entities: [], extra: { ...(options.extra as object), statement_timeout: 0 } });
  await ds.initialize();
  await migrate(ds);
  const bulk = ds.createQueryRunner();
  const q = (sql: string, params: unknown[] = []) => bulk.query(sql, params);

  let org: string = (await q(`SELECT id FROM organizations WHERE name = $1 ORDER BY created_at LIMIT 1`, [ORG_NAME]))[0]?.id;
  if (!org) org = cli(url, 'org:create', '--name', ORG_NAME).organization_id;
  const key: string = cli(url, 'key:create', '--org', org, '--mode', 'test').key;
  log(`organization ${org}`);

  const providers = PROVIDER_CATALOG.slice(0, 15);
  const providerIds = providers.map((p) => p.id);
  const currencies = providers.map((p) => p.currency);
  const invoicesHave = Number((await q(`SELECT count(*)::int AS n FROM invoices WHERE organization_id = $1`, [org]))[0].n);
  const paymentsHave = Number((await q(`SELECT count(*)::int AS n FROM payments WHERE organization_id = $1`, [org]))[0].n);
  if (invoicesHave < invoicesWanted || paymentsHave < paymentsWanted) {
    const started = Date.now();
    await q(`ALTER TABLE invoices DISABLE TRIGGER analytics_invoices_rollup`);
    await q(`ALTER TABLE payments DISABLE TRIGGER analytics_payments_rollup`);
    try {
      for (let from = invoicesHave + 1; from <= invoicesWanted; from += BATCH) {
        const to = Math.min(invoicesWanted, from + BATCH - 1);
        await insertCustomerInvoices(bulk, org, 'invoice_abench_', from, to);
        log(`invoices ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      }
      for (let from = paymentsHave + 1; from <= paymentsWanted; from += BATCH) {
        const to = Math.min(paymentsWanted, from + BATCH - 1);
        // Payment g: one of the invoices, one of 15 providers, 80% COMPLETED / 10% PENDING / 5% FAILED / 5% CANCELLED,
        // 0.000001..1000 USD, happened at a hashed second of the last 365 days.
        await q(
          `
          INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                                idempotency_key, happened_at, created_at, updated_at)
          SELECT 'payment_abench_' || lpad(g::text, 9, '0'), $3, 'test', ($4::text[])[k + 1],
                 'invoice_abench_' || lpad((abs(hashint4(g + 11)) % $6::int + 1)::text, 9, '0'), ($5::text[])[k + 1],
                 a, a, 'rates_bundled_20261120',
                 CASE WHEN s < 80 THEN 'COMPLETED' WHEN s < 90 THEN 'PENDING' WHEN s < 95 THEN 'FAILED' ELSE 'CANCELLED' END,
                 NULL, t, t, t
            FROM generate_series($1::int, $2::int) g,
                 LATERAL (SELECT abs(hashint4(g + 13)) % 15 AS k, abs(hashint4(g + 17)) % 100 AS s,
                                 (abs(hashint4(g + 19)) % 1000000000 + 1) / 1000000.0 AS a,
                                 now() - (abs(hashint4(g + 23)) % (365 * 86400)) * interval '1 second' AS t) x`,
          [from, to, org, providerIds, currencies, invoicesWanted],
        );
        log(`payments ${from}..${to} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      }
    } finally {
      await q(`ALTER TABLE invoices ENABLE TRIGGER analytics_invoices_rollup`);
      await q(`ALTER TABLE payments ENABLE TRIGGER analytics_payments_rollup`);
    }
  }

  // The rollups agree with the raw rows (rebuilt in one pass after a bulk load).
  const agree = async (): Promise<boolean> => {
    const [a] = await q(
      `SELECT (SELECT count(*) FROM payments WHERE organization_id = $1)::text AS raw,
                                (SELECT coalesce(sum(payments_count), 0) FROM analytics_payment_buckets WHERE organization_id = $1 AND grain = 'day')::text AS rolled`,
      [org],
    );
    return a.raw === a.rolled;
  };
  if (!(await agree())) {
    const t = Date.now();
    await q(`SELECT analytics_rebuild($1)`, [org]);
    log(`rollups rebuilt in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    for (const table of [
      'invoices',
      'payments',
      'analytics_payment_buckets',
      'analytics_invoice_buckets',
      'analytics_customer_buckets',
      'analytics_customers',
    ]) {
      await q(`VACUUM ANALYZE ${table}`);
    }
  }
  const raw = (
    await q(`SELECT count(*)::text AS n, sum(price_usd) FILTER (WHERE status = 'COMPLETED')::text AS v FROM payments WHERE organization_id = $1`, [org])
  )[0];
  const rolled = (
    await q(
      `SELECT sum(payments_count)::text AS n, sum(volume_usd) FILTER (WHERE status = 'COMPLETED')::text AS v
                             FROM analytics_payment_buckets WHERE organization_id = $1 AND grain = 'day'`,
      [org],
    )
  )[0];
  const rawInv = (await q(`SELECT count(*)::text AS n, count(DISTINCT lower(customer_email))::text AS c FROM invoices WHERE organization_id = $1`, [org]))[0];
  const rolledInv = (
    await q(
      `SELECT (SELECT sum(invoices_count) FROM analytics_invoice_buckets WHERE organization_id = $1 AND grain = 'hour')::text AS n,
                                     (SELECT count(*) FROM analytics_customers WHERE organization_id = $1)::text AS c`,
      [org],
    )
  )[0];
  log(
    `payments ${raw.n} (rollup ${rolled.n}), completed volume ${raw.v} (rollup ${rolled.v}); invoices ${rawInv.n} (rollup ${rolledInv.n}), customers ${rawInv.c} (rollup ${rolledInv.c})`,
  );
  if (raw.n !== rolled.n || raw.v !== rolled.v || rawInv.n !== rolledInv.n || rawInv.c !== rolledInv.c) throw new Error('rollups disagree with the raw rows');
  const sizes = await q(`SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE relname LIKE 'analytics_%' ORDER BY relname`);
  log(`rollup rows: ${sizes.map((s: { relname: string; n_live_tup: string }) => `${s.relname} ${s.n_live_tup}`).join(', ')}`);

  // What the triggers cost a write: single-row inserts then status updates, with and without them (rolled back).
  for (const withTriggers of [true, false]) {
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    try {
      if (!withTriggers) await runner.query(`ALTER TABLE payments DISABLE TRIGGER analytics_payments_rollup`);
      const n = 2000;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        await runner.query(
          `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status, happened_at, created_at, updated_at)
           VALUES ($1, $2, 'test', 'prov_ethereum_usdt', 'invoice_abench_000000001', 'USDT', 5, 5, 'rates_bundled_20261120', 'PENDING', now() - $3 * interval '1 minute', now(), now())`,
          [`payment_write_bench_${i}`, org, i],
        );
      }
      const t1 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        await runner.query(`UPDATE payments SET status = 'COMPLETED', updated_at = now() WHERE id = $1`, [`payment_write_bench_${i}`]);
      }
      const t2 = process.hrtime.bigint();
      log(
        `${withTriggers ? 'with' : 'without'} rollup triggers: insert ${(Number(t1 - t0) / 1e6 / n).toFixed(3)} ms, status update ${(Number(t2 - t1) / 1e6 / n).toFixed(3)} ms per payment`,
      );
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  // The dashboard's reads in process (the handler's one statement, without HTTP), after building the kept windows once.
  const repo = new AnalyticsRepository();
  const scope = { organizationId: org as OrgId, mode: 'test' as const };
  const today = new Date().toISOString().slice(0, 10);
  let t = Date.now();
  await ds.transaction((m) => repo.rollWindows(m, scope, today));
  log(`kept windows built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  for (const period of ['last_30_days', 'last_365_days', 'last_day', 'prev_last_365_days'] as const) {
    const w = windowOf(period, new Date());
    const kept = keptWindowOf(period);
    const read = async () =>
      buildDashboard({
        window: w,
        read: (kept && (await repo.keptDashboard(ds.manager, scope, w, kept, today))) || (await repo.summedDashboard(ds.manager, scope, w)),
        providerName: (id) => id,
      });
    for (let i = 0; i < 20; i++) await read();
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      t = performance.now();
      await read();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    log(
      `in process ${period}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`,
    );
  }
  log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  await bulk.release();
  await ds.destroy();

  // The dashboard over HTTP, through the real service.
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      RATE_LIMIT_TEST: '1000000',
      DEMO_ORGANIZATION: 'false',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(`${base}/health/ready`)).status === 200) break;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    // Baseline: an authenticated call that reads one row, to show the HTTP and authentication share.
    const baseline: number[] = [];
    for (let i = 0; i < requests + 20; i++) {
      const t = process.hrtime.bigint();
      await (await fetch(`${base}/auth/debug_token`, { headers: { authorization: key } })).text();
      if (i >= 20) baseline.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    baseline.sort((a, b) => a - b);
    log(`baseline GET /auth/debug_token: p50 ${percentile(baseline, 50).toFixed(1)} ms, p95 ${percentile(baseline, 95).toFixed(1)} ms`);
    for (const period of ['last_30_days', 'last_365_days', 'last_day', 'prev_last_365_days']) {
      const call = async () => {
        const t = process.hrtime.bigint();
        const res = await fetch(`${base}/analytics/dashboard`, {
          method: 'POST',
          headers: { authorization: key, 'content-type': 'application/json' },
          body: JSON.stringify({ period }),
        });
        const body = (await res.json()) as {
          status: number;
          data: { payments: { count: number }; invoices: { count: number }; customers: { unique: number } };
        };
        if (res.status !== 200) throw new Error(`dashboard answered ${res.status}: ${JSON.stringify(body)}`);
        return { ms: Number(process.hrtime.bigint() - t) / 1e6, data: body.data };
      };
      for (let i = 0; i < 20; i++) await call();
      const times: number[] = [];
      let last;
      for (let i = 0; i < requests; i++) {
        last = await call();
        times.push(last.ms);
      }
      times.sort((a, b) => a - b);
      log(
        `${period}: ${requests} requests, p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, ` +
          `p99 ${percentile(times, 99).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms ` +
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- set in a callback above; the checker cannot see it
          `(payments ${last!.data.payments.count}, invoices ${last!.data.invoices.count}, customers ${last!.data.customers.unique})`,
      );
    }
    log(
      `load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${cpus().length} cores`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
