/**
 * What one invoice create and one payment record cost, in terms that do not move with the machine's
 * load: CPU time of the service process and of the database's backends per request (from /proc),
 * statements (round trips) the service sends per request and which ones (bench/query-counter.ts
 * preloaded into the service), rows written per table and trigger function calls (pg_stat_*).
 *
 *   npm run --silent build && npx tsc -p bench/tsconfig.json
 *   node dist/bench/write-cost.js [--requests N] [--connections C] [--rounds R] [--service PATH] [--pool P] [--keep-db]
 *                                 [--cpu-prof DIR] (the service writes a V8 CPU profile of the whole run there)
 *
 * It makes its own database (dropped at the end unless --keep-db), seeds 20,000 invoices with two
 * payments each, starts the service as the bench does (production mode, one process, rate limits off,
 * pool of twice the cores), warms both routes up and then, R rounds each, sends N creates and N
 * payment records (each payment on another invoice just created) at C connections in one
 * organization, and prints one line per round and the medians.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import { seedInvoices } from './seed-invoices';
import { seedPayments } from './seed-payments';
import { freePort, mainThreadCpuMs, processCpuMs, withClient } from './process-tools';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const flag = (name: string) => argv.includes(`--${name}`);
const ROOT = join(__dirname, '..', '..');
const MAIN = opt('service', join(ROOT, 'dist', 'src', 'main.js'));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const COUNTER = join(__dirname, 'query-counter.js');
const ORG = 'org_bench_042';
const REQUESTS = Number(opt('requests', '2000'));
const CONNECTIONS = Number(opt('connections', '16'));
const ROUNDS = Number(opt('rounds', '3'));
const POOL = opt('pool', String(2 * cpus().length));
const SECRETS_KEY = Buffer.alloc(32, 1).toString('base64');
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Snapshot {
  service: number;
  /** The service's main thread (the event loop): `service` less V8's background threads and libuv's pool. */
  serviceMain: number;
  backends: Map<number, number>;
  queries: { total: number; byText: Record<string, number> };
  tables: Map<string, number>;
  functions: Map<string, { calls: number; self: number }>;
  commits: number;
}

async function main(): Promise<void> {
  const serverUrl = opt('database-url', process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const db = `ipa_wcost_${Date.now().toString(36)}`;
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE "${db}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${db}`;
  const databaseUrl = url.toString();
  const children: ChildProcess[] = [];
  const counterFile = join(tmpdir(), `ipa-wcost-${process.pid}.json`);
  try {
    const ds = new DataSource({ ...dataSourceOptions(databaseUrl, 2), entities: [] });
    await ds.initialize();
    await migrate(ds);
    await seedInvoices(ds, 20_000, () => undefined);
    // Two payments per invoice, as the bench seeds them. Analyzed empty, payments would keep the
    // sequential scan each session planned while it was empty (data-source.ts, connection lifetime):
    // every payment record would read all payments, more of them at every round.
    await seedPayments(ds, 40_000, 20_000, 0, () => undefined);
    await ds.query(`ALTER DATABASE "${db}" SET track_functions = 'pl'`);
    await ds.query('VACUUM ANALYZE');
    await ds.destroy();
    const key = (
      JSON.parse(
        execFileSync(process.execPath, [CLI, 'key:create', '--org', ORG, '--mode', 'test'], {
          env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', RATE_SOURCES: 'none', SECRETS_KEY, LOG_LEVEL: 'warn' },
          encoding: 'utf8',
        }),
      ) as { key: string }
    ).key;

    const port = await freePort();
    const nodeArgs = ['-r', COUNTER];
    const profDir = opt('cpu-prof', '');
    if (profDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profDir);
    const spawnedAt = Date.now();
    const service = spawn(process.execPath, [...nodeArgs, MAIN], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        ALLOW_NO_LIVE_RAILS: 'true',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        SECRETS_KEY,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        RATE_LIMIT_ENABLED: 'false',
        // The bench measures the service on this machine: no exchange is asked for rates (the table prices test mode).
        RATE_SOURCES: 'none',
        DB_POOL_SIZE: POOL,
        LOG_LEVEL: opt('log-level', 'info'),
        WEB_CONCURRENCY: '1',
        QUERY_COUNTER_FILE: counterFile,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(service);
    const headers = { 'content-type': 'application/json', 'x-forwarded-proto': 'https', authorization: `Bearer ${key}` };
    for (let i = 0; ; i++) {
      if (service.exitCode !== null) throw new Error(`service exited with ${service.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`, { headers }).then(
        (r) => r.status < 500,
        () => false,
      );
      if (ok) break;
      if (i > 600) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 200));
    }

    const readQueries = async (): Promise<Snapshot['queries']> => {
      rmSync(counterFile, { force: true });
      service.kill('SIGUSR2');
      for (let i = 0; i < 200 && !existsSync(counterFile); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 20));
      return JSON.parse(readFileSync(counterFile, 'utf8')) as Snapshot['queries'];
    };
    /** CPU so far (service, database backends) and the statements sent. */
    const usage = (): Promise<Pick<Snapshot, 'service' | 'serviceMain' | 'backends' | 'queries'>> =>
      withClient(databaseUrl, async (c) => {
        const pids = (await c.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map(
          (r: { pid: number }) => r.pid,
        );
        return {
          service: processCpuMs(service.pid!),
          serviceMain: mainThreadCpuMs(service.pid!),
          backends: new Map(pids.map((p: number) => [p, processCpuMs(p)])),
          queries: await readQueries(),
        };
      });
    /** The database's counters: rows written per table, function calls and time, commits. */
    const counters = (): Promise<Pick<Snapshot, 'tables' | 'functions' | 'commits'>> =>
      withClient(databaseUrl, async (c) => {
        const tables = new Map<string, number>(
          (await c.query(`SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables`)).rows.map((r: { relname: string; n: string }) => [
            r.relname,
            Number(r.n),
          ]),
        );
        const functions = new Map<string, { calls: number; self: number }>(
          (await c.query(`SELECT funcname, calls, self_time FROM pg_stat_user_functions`)).rows.map(
            (r: { funcname: string; calls: string; self_time: number }) => [r.funcname, { calls: Number(r.calls), self: Number(r.self_time) }],
          ),
        );
        const commits = Number((await c.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)).rows[0].xact_commit);
        return { tables, functions, commits };
      });

    const load = (path: string, bodies: string[], amount: number): Promise<autocannon.Result> =>
      new Promise((resolve, reject) => {
        let n = 0;
        let failure: string | null = null;
        autocannon(
          {
            url: `http://127.0.0.1:${port}`,
            connections: CONNECTIONS,
            amount,
            timeout: 30,
            requests: [
              {
                method: 'POST',
                path,
                headers,
                setupRequest: (req) => ({ ...req, body: bodies[n++ % bodies.length] }),
                onResponse: (status, body) => {
                  if ((status < 200 || status >= 300) && failure === null) failure = `${status} ${String(body).slice(0, 300)}`;
                },
              },
            ],
          },
          (err, r) => {
            if (err) reject(err instanceof Error ? err : new Error(String(err)));
            else if (failure) reject(new Error(`${path}: ${failure}`));
            else resolve(r);
          },
        );
      });

    const createBodies = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: `${10 + i}.50` }],
        customer_email: `payer${i}@example.com`,
        metadata: { order_id: `bench-${i}` },
      }),
    );
    const freshInvoices = (n: number): Promise<string[]> =>
      withClient(databaseUrl, async (c) =>
        (
          await c.query(
            `SELECT i.id FROM invoices i WHERE i.organization_id = $1 AND i.mode = 'test' AND i.status = 'PENDING' AND i.expires_at > now()
                AND NOT EXISTS (SELECT FROM payments p WHERE p.invoice_id = i.id) ORDER BY i.created_at DESC LIMIT $2`,
            [ORG, n],
          )
        ).rows.map((r: { id: string }) => JSON.stringify({ invoice_id: r.id, provider_id: 'prov_ethereum_usdt', price: '0.5' })),
      );

    log(`warming up (database ${db})`);
    await load('/invoices/create', createBodies, 3000);
    await load('/test_helpers/payments', await freshInvoices(1500), 1500);

    const results: Record<string, Array<Record<string, number>>> = { create: [], payment: [] };
    // Backends report their table and function counters at most every second and, once idle, within
    // 10 s: the first round waits that long before each snapshot so its per-table rows are complete.
    const settle = () => new Promise((r) => setTimeout(r, 11_000));
    const measure = async (what: string, path: string, bodies: string[]) => {
      const detailed = results[what].length === 0;
      if (detailed) await settle();
      const beforeCounters = await counters();
      const before = { ...(await usage()), ...beforeCounters };
      const started = Date.now();
      const r = await load(path, bodies, REQUESTS);
      const ended = Date.now();
      const seconds = (ended - started) / 1000;
      const afterUsage = await usage();
      if (detailed) await settle();
      const after = { ...afterUsage, ...(await counters()) };
      log(`  ${what} ran from ${((started - spawnedAt) / 1000).toFixed(1)} s to ${((ended - spawnedAt) / 1000).toFixed(1)} s after the service started`);
      const n = r.requests.total;
      let pg = 0;
      for (const [pid, t] of after.backends) pg += t - (before.backends.get(pid) ?? 0);
      const row = {
        requests: n,
        rps: Math.round(n / seconds),
        service_cpu_ms: (after.service - before.service) / n,
        service_main_thread_cpu_ms: (after.serviceMain - before.serviceMain) / n,
        db_cpu_ms: pg / n,
        statements: (after.queries.total - before.queries.total) / n,
        commits: (after.commits - before.commits) / n,
        load1: loadavg()[0],
      };
      results[what].push(row);
      log(`${what}: ${JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Math.round(v * 1000) / 1000])))}`);
      if (detailed) {
        const statements = Object.entries(after.queries.byText)
          .map(([text, c]) => [text, (c - (before.queries.byText[text] ?? 0)) / n] as const)
          .filter(([, c]) => c > 0.001)
          .sort((a, b) => b[1] - a[1]);
        log(`  statements per ${what}:`);
        for (const [text, c] of statements) log(`    ${c.toFixed(2)}  ${text}`);
        log(`  rows written per ${what} (inserted + updated + deleted):`);
        for (const [t, v] of after.tables) {
          const d = (v - (before.tables.get(t) ?? 0)) / n;
          if (d > 0.001) log(`    ${d.toFixed(2)}  ${t}`);
        }
        log(`  database functions per ${what} (calls, self ms):`);
        for (const [f, v] of after.functions) {
          const b = before.functions.get(f) ?? { calls: 0, self: 0 };
          if (v.calls > b.calls) log(`    ${((v.calls - b.calls) / n).toFixed(2)}  ${((v.self - b.self) / n).toFixed(3)} ms  ${f}`);
        }
      }
    };
    for (let round = 0; round < ROUNDS; round++) {
      await measure('create', '/invoices/create', createBodies);
      await measure('payment', '/test_helpers/payments', await freshInvoices(REQUESTS));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const summary: Record<string, Record<string, number>> = {};
    for (const [what, rows] of Object.entries(results)) {
      summary[what] = {};
      for (const k of Object.keys(rows[0])) summary[what][k] = Math.round(median(rows.map((r) => r[k])) * 1000) / 1000;
    }
    process.stdout.write(`${JSON.stringify({ connections: CONNECTIONS, requests: REQUESTS, rounds: ROUNDS, median: summary })}\n`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(counterFile, { force: true });
    if (!flag('keep-db')) await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`)).catch(() => undefined);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
