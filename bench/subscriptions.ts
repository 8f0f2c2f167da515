/**
 * Subscriptions and usage: ingestion throughput and period close, against a raw insert floor.
 *
 *   npm run build && tsc -p bench/tsconfig.json && node dist/bench/subscriptions.js [--duration S] [--subscriptions N] [--database-url URL]
 *
 * 1. Creates its own database (ipa_bench_subs_...) on DATABASE_URL's server, runs the migrations and starts
 *    two instances of the built service on it (CLOCK_CONTROL=true, so NODE_ENV=development; rate limits off,
 *    SUBSCRIPTIONS_TICK_SECONDS=1).
 * 2. Usage ingestion from 16 connections (bench/load.ts, autocannon in its own process), every event a new
 *    id: `POST /usage_events` (one event a request) and `POST /usage_events/batch` (100 a request); then the
 *    floor: 16 pg connections inserting the same rows with the service's statement, one row a statement.
 * 3. Period close: N ARREARS subscriptions (default 10,000) of one organization, all due at one moment by
 *    moving its test clock past their period end; the time until every period invoice exists, with both
 *    instances' schedulers taking the work, and a count of periods invoiced twice (must be 0).
 * Prints one JSON object and writes it to bench/results/subscriptions-<time>.json.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import type { LoadResult, LoadSpec } from './load';
import { benchOption, ROOT, serviceCall, startService as startBuiltService, withDatabase } from './process-tools';

const opt = benchOption;
const LOAD = join(__dirname, 'load.js');
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const CONNECTIONS = 16;
const duration = Number(opt('duration', '10'));
const closeCount = Number(opt('subscriptions', '10000'));
const log = (msg: string) => process.stderr.write(`${msg}\n`);

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** The built service for this bench: its clock under control (so NODE_ENV=development), the scheduler every second. */
const startService = (databaseUrl: string) =>
  startBuiltService(databaseUrl, ADMIN_TOKEN, {
    NODE_ENV: 'development',
    CLOCK_CONTROL: 'true',
    SUBSCRIPTIONS_TICK_SECONDS: '1',
    INVOICE_SWEEP_SECONDS: '0',
  });

const call = (base: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> =>
  serviceCall(base, ADMIN_TOKEN, key, method, path, body);

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const file = join(tmpdir(), `ipa-bench-subs-${process.pid}-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(spec));
    const child = spawn(process.execPath, [LOAD, `@${file}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      rmSync(file, { force: true });
      if (code !== 0) reject(new Error(`load process exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as LoadResult);
    });
  });
}

async function plan(base: string, key: string): Promise<{ product_id: string; billing_schema_id: string }> {
  const product = await call(base, key, 'POST', '/products', {
    name: 'Metered',
    description: 'Bench plan',
    metadata: {},
    schemas: [
      {
        name: 'Monthly',
        description: 'Monthly in arrears',
        currency: 'USD',
        type: 'RECURRING',
        base_price: 10,
        interval_type: 'MONTH',
        interval_count: 1,
        payment_type: 'ARREARS',
        renew_type: 'ANNIVERSARY',
        billing_type: 'FULL',
        configurations: [
          { starts_at: 0, ends_at: 1000, price_per_unit: 0.001, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
          { starts_at: 1000, ends_at: null, price_per_unit: 0.0005, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
        ],
      },
    ],
  });
  const read = await call(base, key, 'GET', `/products/${product.id}`);
  return { product_id: product.id, billing_schema_id: read.schemas[0].id };
}

/** The floor: the same rows, one statement each (the id's key first, as the service de-duplicates: ON CONFLICT DO NOTHING), from 16 connections. */
async function rawFloor(databaseUrl: string, org: string, subscriptionIds: string[], seconds: number): Promise<{ rows: number; rows_per_s: number }> {
  let rows = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, w) => {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        for (let i = 0; Date.now() < until; i++) {
          await c.query(
            `WITH k AS (
               INSERT INTO usage_event_keys (organization_id, mode, id, "timestamp") VALUES ($1, 'test', $2, now())
               ON CONFLICT (organization_id, mode, id) DO NOTHING RETURNING id)
             INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", created_at)
             SELECT $1, 'test', k.id, $3, 'api_calls', 1, NULL, now(), now() FROM k`,
            [org, `floor-${w}-${i}`, subscriptionIds[i % subscriptionIds.length]],
          );
          rows++;
        }
      } finally {
        await c.end();
      }
    }),
  );
  return { rows, rows_per_s: Math.round(rows / ((Date.now() - started) / 1000)) };
}

async function main(): Promise<void> {
  const serverUrl = opt('database-url', process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const dbName = `ipa_bench_subs_${Date.now().toString(36)}`;
  await sql(serverUrl, `CREATE DATABASE "${dbName}"`);
  const databaseUrl = withDatabase(serverUrl, dbName);
  const children: ChildProcess[] = [];
  try {
    const ds = new DataSource({ ...dataSourceOptions(databaseUrl, 2), entities: [] });
    await ds.initialize();
    await migrate(ds);
    await ds.destroy();
    const a = await startService(databaseUrl);
    children.push(a.child);
    const b = await startService(databaseUrl);
    children.push(b.child);
    log(`database ${dbName}; two instances up`);

    // 2. Ingestion.
    const ingestOrg = await call(a.base, null, 'POST', '/admin/organizations', { name: 'Ingestion' });
    const key: string = ingestOrg.test_key;
    const p = await plan(a.base, key);
    const subs: string[] = [];
    for (let i = 0; i < CONNECTIONS; i++) subs.push((await call(a.base, key, 'POST', '/subscriptions', { ...p, customer_email: `c${i}@example.com` })).id);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const singleBodies = Array.from({ length: duration * 6000 }, (_, i) =>
      JSON.stringify({ id: `s-${i}`, subscription_id: subs[i % subs.length], metric_key: 'api_calls', value: '1' }),
    );
    log(`single events, ${duration} s at ${CONNECTIONS} connections`);
    const single = await runLoad({
      url: a.base,
      method: 'POST',
      headers,
      paths: ['/usage_events'],
      bodies: singleBodies,
      connections: CONNECTIONS,
      durationSeconds: duration,
    });
    const batchBodies = Array.from({ length: duration * 200 }, (_, r) =>
      JSON.stringify({
        events: Array.from({ length: 100 }, (_, j) => ({
          id: `b-${r}-${j}`,
          subscription_id: subs[(r + j) % subs.length],
          metric_key: 'api_calls',
          value: '1',
        })),
      }),
    );
    log(`batches of 100, ${duration} s at ${CONNECTIONS} connections`);
    const batch = await runLoad({
      url: a.base,
      method: 'POST',
      headers,
      paths: ['/usage_events/batch'],
      bodies: batchBodies,
      connections: CONNECTIONS,
      durationSeconds: duration,
    });
    log(`raw insert floor, ${duration} s at ${CONNECTIONS} connections`);
    const floor = await rawFloor(databaseUrl, ingestOrg.organization_id, subs, duration);

    // 3. Period close.
    const closeOrg = await call(a.base, null, 'POST', '/admin/organizations', { name: 'Period close' });
    const closeKey: string = closeOrg.test_key;
    const cp = await plan(a.base, closeKey);
    log(`creating ${closeCount} subscriptions`);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, w) => {
        const base = w % 2 ? b.base : a.base;
        for (let i = next++; i < closeCount; i = next++) await call(base, closeKey, 'POST', '/subscriptions', { ...cp, customer_email: `p${i}@example.com` });
      }),
    );
    const countInvoices = async () =>
      Number(
        (
          await sql<{ n: string }>(databaseUrl, `SELECT count(*) AS n FROM invoices WHERE organization_id = $1 AND subscription_id IS NOT NULL`, [
            closeOrg.organization_id,
          ])
        )[0].n,
      );
    log('moving the clock 32 days: every subscription due at once');
    const movedAt = Date.now();
    await call(a.base, closeKey, 'POST', '/test_helpers/clock', { advance_seconds: 32 * 86_400 });
    let issued = 0;
    while ((issued = await countInvoices()) < closeCount && Date.now() - movedAt < 600_000) await new Promise((r) => setTimeout(r, 250));
    const closeSeconds = (Date.now() - movedAt) / 1000;
    const duplicates = Number(
      (
        await sql<{ n: string }>(
          databaseUrl,
          `SELECT count(*) - count(DISTINCT (subscription_id, period_start)) AS n FROM invoices WHERE organization_id = $1 AND subscription_id IS NOT NULL`,
          [closeOrg.organization_id],
        )
      )[0].n,
    );

    const result = {
      at: new Date().toISOString(),
      cores: cpus().length,
      connections: CONNECTIONS,
      duration_s: duration,
      ingestion: {
        single: { events_per_s: Math.round(single.rps), p50_ms: single.p50, p99_ms: single.p99, non2xx: single.non2xx },
        batch_100: {
          events_per_s: Math.round(batch.rps * 100),
          requests_per_s: Math.round(batch.rps),
          p50_ms: batch.p50,
          p99_ms: batch.p99,
          non2xx: batch.non2xx,
        },
        raw_insert_floor: { events_per_s: floor.rows_per_s },
      },
      period_close: {
        subscriptions: closeCount,
        invoices_issued: issued,
        seconds: Math.round(closeSeconds * 10) / 10,
        invoices_per_s: Math.round(issued / closeSeconds),
        instances: 2,
        duplicates,
      },
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', `subscriptions-${result.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await sql(serverUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
