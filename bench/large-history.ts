/**
 * Large history: are writes and reads unchanged by the size of the rate history, of the usage events and of
 * the outbox (`events`)?
 * Outside CI; heavy with the defaults (a year of rates at the default refresh is about 100 million rate rows
 * and 5.5 GB): run it on a machine of its own.
 *
 *   npm run build && tsc -p bench/tsconfig.json && node dist/bench/large-history.js [--days 365] [--refresh 60]
 *       [--usage 5000000] [--events 10000000] [--ops 200] [--keep true] [--database-url URL]
 *
 * 1. Creates its own database (ipa_bench_history_...) on DATABASE_URL's server, runs the migrations, starts the
 *    built service on it (retention long enough to keep all that is filled: RATES_HISTORY_RETENTION_DAYS and
 *    USAGE_EVENTS_RETENTION_DAYS of 1,000 days; the job runs on demand only), one organization and one
 *    ARREARS subscription of a metered plan.
 * 2. Measures, one request at a time, `--ops` of each: invoice create (prices with the rates in force, writes
 *    an event), a payment (writes the payment's and the invoice's events), a quote, usage batches of 100 new
 *    events, the upcoming invoice of a subscription with a fixed usage of its own (reads its period's usage),
 *    the newest events and the newest of one type (the events list), the invoices list and the dashboard.
 *    Each measurement runs twice and the second is kept (the first warms the service and the caches).
 * 3. Fills the history the way the service writes it: `--days` days of rate snapshots (one each `--refresh`
 *    seconds, every currency of the shipped table, ids `rates_<UUIDv7 of their time>`) and `--usage` usage
 *    events spread over the same days for other subscriptions of the organization, each with its key, and
 *    `--events` events over the same days (a tenth of them the measured organization's, the rest nine other
 *    organizations'). The retention job first gives each day and month its partition (one stray row each,
 *    moved by a pass), then the bulk goes straight into them. Each chunk of events moves the durable
 *    handlers' cursors past itself in its own transaction: a history already read, as on a running service
 *    (the handlers' pass over ten million unread events is not what this measures).
 * 4. Measures step 2 again and prints one JSON line: per operation the median and p95 before and after, and
 *    their ratio (1.0: unchanged), with the table sizes. Writes it to bench/results/large-history-<time>.json.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import { benchOption, ROOT, serviceCall, startService as startBuiltService, withDatabase } from './process-tools';

const opt = benchOption;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const DAY_MS = 86_400_000;
const days = Number(opt('days', '365'));
const refresh = Number(opt('refresh', '60'));
const usageCount = Number(opt('usage', '5000000'));
const eventCount = Number(opt('events', '10000000'));
const ops = Number(opt('ops', '200'));
/** Keep the database afterwards (its name is logged), to look into a plan. */
const keep = opt('keep', 'false') === 'true';
const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** The built service for this bench: retention long enough to keep all that is filled, every worker's pass on demand. */
const startService = (databaseUrl: string) =>
  startBuiltService(databaseUrl, ADMIN_TOKEN, {
    NODE_ENV: 'development',
    SUBSCRIPTIONS_TICK_SECONDS: '0',
    INVOICE_SWEEP_SECONDS: '0',
    PARTITION_RETENTION_SECONDS: '0',
    RATES_HISTORY_RETENTION_DAYS: '1000',
    USAGE_EVENTS_RETENTION_DAYS: '1000',
    EVENTS_RETENTION_DAYS: '1000',
    WEBHOOK_DELIVERIES_RETENTION_DAYS: '1000',
    WORKER_PASSES_ON_DEMAND: 'true',
  });

const call = (base: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> =>
  serviceCall(base, ADMIN_TOKEN, key, method, path, body);

interface Timing {
  median_ms: number;
  p95_ms: number;
}

async function time(n: number, op: (i: number) => Promise<unknown>): Promise<Timing> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await op(i);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] * 100) / 100;
  return { median_ms: at(0.5), p95_ms: at(0.95) };
}

/** The SQL text of the lowest UUIDv7 of the instant `ts` (a timestamptz expression), with `tail` as its last 12 hex digits. */
const uuidv7Sql = (ts: string, tail: string) =>
  `(substr(lpad(to_hex((extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex((extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0'), 9, 4) || '-7000-8000-' || ${tail})`;

async function main(): Promise<void> {
  const serverUrl = opt('database-url', process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const dbName = `ipa_bench_history_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const databaseUrl = withDatabase(serverUrl, dbName);
  let child: ChildProcess | null = null;
  const db = new Client({ connectionString: databaseUrl });
  try {
    const ds = new DataSource({ ...dataSourceOptions(databaseUrl, 2), entities: [] });
    await ds.initialize();
    await migrate(ds);
    await ds.destroy();
    const service = await startService(databaseUrl);
    child = service.child;
    const base = service.base;
    await db.connect();
    log(`database ${dbName}; service up`);

    const org = await call(base, null, 'POST', '/admin/organizations', { name: 'History' });
    const key: string = org.test_key;
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
            { starts_at: 0, ends_at: null, price_per_unit: 0.01, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
          ],
        },
      ],
    });
    const read = await call(base, key, 'GET', `/products/${product.id}`);
    const plan = { product_id: product.id, billing_schema_id: read.schemas[0].id };
    const subscribe = async (i: number) => (await call(base, key, 'POST', '/subscriptions', { ...plan, customer_email: `c${i}@example.com` })).id as string;
    const measured = await subscribe(0);
    // The subscription whose upcoming invoice is read: a fixed usage of its own (1,000 events), so the read's
    // cost can change only with the history around it (the batches measured go to `measured`, whose usage grows).
    const steady = await subscribe(100);
    for (let b = 0; b < 10; b++) {
      await call(base, key, 'POST', '/usage_events/batch', {
        events: Array.from({ length: 100 }, (_, j) => ({ id: `steady-${b}-${j}`, subscription_id: steady, metric_key: 'api_calls', value: '1' })),
      });
    }
    // The organizations whose events fill the outbox besides the measured one.
    const neighbours: string[] = [];
    for (let i = 0; i < 9; i++) neighbours.push((await call(base, null, 'POST', '/admin/organizations', { name: `Neighbour ${i}` })).organization_id as string);
    const eventOrgs = [org.organization_id, ...neighbours];
    const others = await Promise.all(Array.from({ length: 20 }, (_, i) => subscribe(i + 1)));

    let round = 0;
    const measure = async () => {
      round += 1;
      const r = round;
      return {
        invoice_create: await time(ops, () =>
          call(base, key, 'POST', '/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }], currency: 'USD' }),
        ),
        quote: await time(ops, () =>
          call(base, key, 'POST', '/pay/quote', { currency: 'EUR', items: [{ type: 'PAYMENT_INTENT', currency: 'BITCOIN', price: '0.01' }] }),
        ),
        usage_batch_100: await time(ops, (i) =>
          call(base, key, 'POST', '/usage_events/batch', {
            events: Array.from({ length: 100 }, (_, j) => ({ id: `m${r}-${i}-${j}`, subscription_id: measured, metric_key: 'api_calls', value: '1' })),
          }),
        ),
        upcoming_invoice: await time(ops, () => call(base, key, 'GET', `/subscriptions/${steady}/upcoming_invoice`)),
        payment: await (async () => {
          const invoices: string[] = [];
          for (let i = 0; i < ops; i++) {
            const created = await call(base, key, 'POST', '/invoices/create', {
              items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }],
              currency: 'USD',
            });
            invoices.push(created.id as string);
          }
          return time(ops, (i) =>
            call(base, key, 'POST', '/test_helpers/payments', { invoice_id: invoices[i], provider_id: 'prov_card_usd', price: '10', status: 'COMPLETED' }),
          );
        })(),
        events_newest: await time(ops, () => call(base, key, 'POST', '/events', { limit: 20 })),
        events_of_a_type: await time(ops, () => call(base, key, 'POST', '/events', { type: ['invoice.completed'], limit: 20 })),
        invoices_list: await time(ops, () => call(base, key, 'POST', '/invoices/list', { limit: 20 })),
        dashboard: await time(ops, () => call(base, key, 'POST', '/analytics/dashboard', { period: 'last_30_days' })),
      };
    };
    const sizes = async () => {
      const rows = await db.query(
        `SELECT (SELECT count(*) FROM rate_snapshots)::int AS snapshots, (SELECT count(*) FROM exchange_rates)::bigint::text AS rates,
                (SELECT count(*) FROM usage_events)::bigint::text AS usage_events,
                (SELECT count(*) FROM events)::bigint::text AS events,
                (SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass)::int AS event_partitions,
                pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS partitions_size
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent IN ('exchange_rates_recent'::regclass, 'usage_events'::regclass, 'events'::regclass)`,
      );
      return rows.rows[0];
    };

    // Each measurement is taken twice and the second kept: the first warms the service and the caches up.
    log(`measuring on an empty history, ${ops} of each, twice`);
    await measure();
    const before = await measure();
    const sizeBefore = await sizes();

    // 3. Fill. One stray row per day (rates) and month (usage) in the default partitions: a pass gives each its partition.
    const now = Date.now();
    const from = new Date(now - days * DAY_MS);
    log(`filling ${days} days of rates every ${refresh} s, ${usageCount} usage events and ${eventCount} events`);
    await db.query(
      `INSERT INTO rate_snapshots_recent (id, taken_at, source, created_at)
       SELECT 'rates_' || ${uuidv7Sql('d', `'000000000000'`)}, d, 'bench', d FROM generate_series($1::timestamptz, $2::timestamptz, interval '1 day') d`,
      [from, new Date(now - DAY_MS)],
    );
    await db.query(
      `INSERT INTO usage_event_keys (organization_id, mode, id, "timestamp")
       SELECT $1, 'test', 'stray-' || d::text, d FROM generate_series($2::timestamptz, $3::timestamptz, interval '1 month') d`,
      [org.organization_id, from, new Date(now)],
    );
    await db.query(
      `INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, "timestamp", created_at)
       SELECT $1, 'test', 'stray-' || d::text, $4, 'api_calls', 1, d, d FROM generate_series($2::timestamptz, $3::timestamptz, interval '1 month') d`,
      [org.organization_id, from, new Date(now), others[0]],
    );
    await db.query(
      `INSERT INTO events (id, organization_id, mode, type, data, created_at)
       SELECT 'event_' || ${uuidv7Sql('d', `'ffffffffffff'`)}, $1, 'test', 'invoice.created', '{"object": {"id": "inv_stray"}}', d
         FROM generate_series($2::timestamptz, $3::timestamptz, interval '1 month') d`,
      [org.organization_id, from, new Date(now)],
    );
    await db.query(`UPDATE event_handler_cursors SET transaction_id = pg_current_xact_id(), position = (SELECT max(position) FROM events)`);
    await call(base, key, 'POST', '/test_helpers/workers/partition-retention/run');
    const fillStarted = Date.now();
    // Rates, a day at a time (one transaction each): the snapshot rows, then every currency's rate.
    for (let d = 0; d < days; d++) {
      const dayStart = new Date(from.getTime() + d * DAY_MS);
      await db.query(
        `WITH s AS (
           INSERT INTO rate_snapshots_recent (id, taken_at, source, created_at)
           SELECT 'rates_' || ${uuidv7Sql('t', `lpad(to_hex(n), 12, '0')`)}, t, 'bench', t
             FROM generate_series(1, $2::int) n, LATERAL (SELECT $1::timestamptz + n * $3::interval AS t) x
           RETURNING id, taken_at)
         INSERT INTO exchange_rates_recent (snapshot_id, currency, usd_rate, source, taken_at)
         SELECT s.id, r.currency, r.usd_rate, 'bench', s.taken_at FROM s CROSS JOIN exchange_rates r WHERE r.snapshot_id = 'rates_bundled_20261120'`,
        [dayStart, Math.floor(86_400 / refresh) - 1, `${refresh} seconds`],
      );
      if (d % 30 === 29) log(`  ${d + 1} days of rates`);
    }
    // Usage: spread over the days, in chunks of 100,000 (keys first, as the service writes them).
    for (let done = 0; done < usageCount; done += 100_000) {
      const n = Math.min(100_000, usageCount - done);
      await db.query(
        `WITH e AS (
           SELECT 'h-' || g AS id, $3::text[] AS subs, g,
                  $4::timestamptz + ((g * 7919) % ($5::bigint * 86400)) * interval '1 second' AS ts
             FROM generate_series($2::bigint, $2::bigint + $6::bigint - 1) g),
         k AS (INSERT INTO usage_event_keys (organization_id, mode, id, "timestamp") SELECT $1, 'test', id, ts FROM e)
         INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, "timestamp", created_at)
         SELECT $1, 'test', id, subs[1 + g % array_length(subs, 1)], 'api_calls', 1, ts, ts FROM e`,
        [org.organization_id, done, others, from, days, n],
      );
      if ((done / 100_000) % 10 === 9) log(`  ${done + n} usage events`);
    }
    // Events: spread over the days, in chunks of 100,000, each in a transaction that also moves every durable
    // handler's cursor past it (the history is one the handlers have read).
    const EVENT_TYPES = ['invoice.created', 'payment.created', 'invoice.completed', 'invoice.updated'];
    for (let done = 0; done < eventCount; done += 100_000) {
      const n = Math.min(100_000, eventCount - done);
      await db.query('BEGIN');
      await db.query(
        `WITH e AS (
           SELECT g, $3::timestamptz + ((g * 7919) % ($4::bigint * 86400)) * interval '1 second' AS ts
             FROM generate_series($1::bigint, $1::bigint + $5::bigint - 1) g)
         INSERT INTO events (id, organization_id, mode, type, data, created_at)
         SELECT 'event_' || ${uuidv7Sql('ts', `lpad(to_hex(g), 12, '0')`)}, ($2::text[])[1 + g % array_length($2::text[], 1)], 'test',
                ($6::text[])[1 + (g / 10) % array_length($6::text[], 1)],
                jsonb_build_object('object', jsonb_build_object('id', 'inv_h' || (g / 4)::text, 'status', 'PENDING', 'price_usd', '10')), ts
           FROM e`,
        [done, eventOrgs, from, days, n, EVENT_TYPES],
      );
      await db.query(
        `UPDATE event_handler_cursors SET transaction_id = pg_current_xact_id(),
                position = (SELECT max(position) FROM events WHERE transaction_id = pg_current_xact_id())`,
      );
      await db.query('COMMIT');
      if ((done / 100_000) % 10 === 9) log(`  ${done + n} events`);
    }
    // The state a running database reaches with autovacuum on: visibility maps set, statistics taken.
    await db.query('VACUUM (ANALYZE)');
    // And the fill's dirty pages written out now, not by a checkpoint during the measurements.
    await db.query('CHECKPOINT');
    const fillSeconds = Math.round((Date.now() - fillStarted) / 1000);

    log(`measuring on the large history, ${ops} of each, twice`);
    await measure();
    const after = await measure();
    const sizeAfter = await sizes();
    const ratio = Object.fromEntries(
      Object.entries(after).map(([op, t]) => [op, Math.round((t.median_ms / before[op as keyof typeof before].median_ms) * 100) / 100]),
    );
    const result = {
      days,
      refresh_seconds: refresh,
      usage_events: usageCount,
      events: eventCount,
      ops,
      fill_seconds: fillSeconds,
      before,
      after,
      after_over_before: ratio,
      sizeBefore,
      sizeAfter,
    };
    const line = JSON.stringify(result);
    process.stdout.write(`${line}\n`);
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', `large-history-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), `${line}\n`);
  } finally {
    await db.end().catch(() => undefined);
    if (child) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    const cleanup = new Client({ connectionString: serverUrl });
    await cleanup.connect();
    if (keep) log(`kept database ${dbName}`);
    else await cleanup.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await cleanup.end();
  }
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
});
