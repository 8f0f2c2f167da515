/**
 * The benchmark: the service against the raw floor, in one run.
 *
 *   npm run bench                 1,000,000 invoices, 20 s per scenario
 *   npm run bench -- --quick      100,000 invoices, 5 s per scenario (a few minutes)
 *   options: --invoices N --dashboard-payments N --dashboard-invoices N --duration S --connections C --workers W --pool P --log-level L --keep-db --database-url URL
 *            --service PATH (another build's dist/src/main.js, to compare two versions on one data set)
 *            --curve-only (only the one-organization writes: create, payment record and their concurrency curve)
 *            --curve-seconds S (seconds per side and point of the curve; default 4 quick, 10 full)
 *            --warm S (seconds of invoice creates each side takes before anything is measured; default 3)
 *            (runs with --service, --database-url or a --pool other than the default keep their result file but leave bench/results/latest*.json alone)
 *
 * 1. Creates its own database (ipa_bench_...) on DATABASE_URL's server (default
 *    postgres://postgres@127.0.0.1:5432/postgres), runs the migrations and seeds it with SQL that
 *    matches the schema: invoices over 100 organizations with items and calculations, two payments
 *    per invoice, and one organization with 1,000,000 payments and 300,000 invoices for the dashboard (when the analytics
 *    module is there).
 * 2. Starts the built service in production mode (NODE_ENV=production, rate limits off so the load
 *    is not refused, pool of P (by default twice the cores), WEB_CONCURRENCY=W, by default the cores minus one) and the raw floor
 *    (bench/floor-server.ts: node:http + pg pool of the same P running the service's own create and read SQL).
 * 3. Drives each scenario with autocannon from a separate process (bench/load.ts) at 16 connections;
 *    floor and service alternate in rounds (2.5 s quick, 5 s full; every other round in reverse order) and
 *    each side's rounds are merged;
 *    create and read are warmed up once at the start, every other scenario just before it is measured
 *    (2 s quick, 3 s full; not counted). Samples the resident memory of every service process.
 * 4. Prints a table, writes bench/results/<time>.json and bench/results/latest.json (figures and the
 *    machine's facts) and, as the last line, one JSON object with the figures the targets are about.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, hostname, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../src/shared/db/data-source';
import { explainLists, ExplainedFilter } from './explain';
import { LoadResult, LoadSpec, percentile } from './load';
import { SEEDED_TABLES, seedInvoices, vacuumAnalyzeSeeded } from './seed-invoices';
import { DASHBOARD_ORG, seedPayments, withRollupsRebuiltAfter } from './seed-payments';
import { MINIMAL_TABLES, prepareMinimalTables } from './minimal-floor';
import { freePort } from './process-tools';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const ROOT = join(__dirname, '..', '..');
const MAIN = opt('service', join(ROOT, 'dist', 'src', 'main.js'));
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const FLOOR = join(__dirname, 'floor-server.js');
const MINIMAL = join(__dirname, 'minimal-floor.js');
const FRAMEWORK = join(__dirname, 'framework-floor.js');
const LOAD = join(__dirname, 'load.js');
const RESULTS = join(ROOT, 'bench', 'results');
const ORG = 'org_bench_042';
/** Lists are measured on another organization, so the invoices the create scenario adds do not change them. */
const LIST_ORG = 'org_bench_007';
/** An organization loaded after the last ANALYZE and not vacuumed (a new merchant's import), as large as LIST_ORG. */
const FRESH_ORG = 'org_bench_fresh';

const quick = flag('quick');
const invoices = Number.parseInt(opt('invoices', quick ? '100000' : '1000000'), 10);
const payments = invoices * 2;
const dashboardPayments = Number.parseInt(opt('dashboard-payments', '1000000'), 10);
const dashboardInvoices = Number.parseInt(opt('dashboard-invoices', '300000'), 10);
const duration = Number.parseInt(opt('duration', quick ? '5' : '20'), 10);
const connections = Number.parseInt(opt('connections', '16'), 10);
// The service gets the cores PostgreSQL and the load generator leave it: on this benchmark's 2-core
// machine, which runs all three, one worker (two workers measured worse tails on every list and the
// dashboard, the same read ratio; docs/performance-history.md). --workers N overrides.
const workers = opt('workers', String(Math.max(1, cpus().length - 1)));
// Database connections per service process and per floor, the same on both sides. PostgreSQL runs on this
// machine, so the default is what the README advises an operator there: about twice the cores. On the full
// data a pool of 4 against 20 took the filtered list's p99 from 43 to 20 ms and served a third more creates,
// floors included (docs/performance-history.md). --pool 20 measures the floor as the issue first did.
const defaultPool = String(2 * cpus().length);
const pool = opt('pool', defaultPool);
const curveOnly = flag('curve-only');
const curveSeconds = Number(opt('curve-seconds', quick ? '4' : '10'));
/** The one-organization concurrency curve: create and payment record at these connections, service against the minimal floor. */
const CURVE = [1, 4, 16, 64];
/** What the run is doing: the last progress line, named in the JSON line if the run fails there. */
let phase = 'starting';
const log = (line: string) => {
  phase = line.trim();
  process.stderr.write(`${line}\n`);
};

interface Row {
  name: string;
  result: LoadResult | null;
  floor?: LoadResult | null;
  /** The floor sending the same statements as named (prepared) statements, as the service does. */
  preparedFloor?: LoadResult | null;
  /** The minimal floor (bench/minimal-floor.ts): the rows alone, no triggers, outbox or idempotency. */
  minimalFloor?: LoadResult | null;
  /** The framework floor (bench/framework-floor.ts): the minimal floor's writes behind Nest, Express and the service's ValidationPipe and DTOs. */
  frameworkFloor?: LoadResult | null;
  note?: string;
  /** Peak RSS of one service process while the scenario ran. */
  rssMb?: number;
  /** Scenarios measured against floors: what a request cost each side (CPU, WAL), averaged over the rounds. */
  costs?: Record<string, { cpu_ms: number; db_cpu_ms: number; wal_bytes: number; wal_fpi: number; backend_buffer_writes: number }>;
}

/**
 * The CPU a request of the scenario costs the minimal floor and its database over what it costs the
 * service and its database (the scenario's rounds averaged); null when the scenario has no minimal floor.
 */
function cpuRatioMinimal(row: Row): number | null {
  const floor = row.costs?.['minimal floor'];
  const service = row.costs?.service;
  if (!floor || !service || service.cpu_ms + service.db_cpu_ms <= 0) return null;
  return Math.round(((floor.cpu_ms + floor.db_cpu_ms) / (service.cpu_ms + service.db_cpu_ms)) * 100) / 100;
}

/** One side's throughput over another's, two decimals; null when either side was not measured. */
function rpsRatio(a: LoadResult | null | undefined, b: LoadResult | null | undefined): number | null {
  return a && b && b.rps > 0 ? Math.round((a.rps / b.rps) * 100) / 100 : null;
}

/** The write scenarios' ratios beside their throughput against the minimal floor: CPU, and the framework floor's. */
function writeRatios(create: Row, payment: Row) {
  return {
    create_cpu_ratio_minimal: cpuRatioMinimal(create),
    payment_cpu_ratio_minimal: cpuRatioMinimal(payment),
    create_framework_ratio_minimal: rpsRatio(create.frameworkFloor, create.minimalFloor),
    create_ratio_framework: rpsRatio(create.result, create.frameworkFloor),
    payment_framework_ratio_minimal: rpsRatio(payment.frameworkFloor, payment.minimalFloor),
    payment_ratio_framework: rpsRatio(payment.result, payment.frameworkFloor),
  };
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Where the database server was reached, without credentials: `host:port` over TCP, or the Unix socket's directory. */
function describeServer(serverUrl: string): string {
  const url = new URL(serverUrl);
  const socketDir = url.searchParams.get('host');
  return socketDir?.startsWith('/') ? `unix socket in ${socketDir}` : `tcp ${url.hostname}:${url.port || '5432'}`;
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function waitFor(url: string, headers: Record<string, string>, child: ChildProcess, what: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      const res = await fetch(url, { headers });
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start`);
}

/** Production mode needs a key to seal secrets at rest; the bench's throwaway database uses a fixed one. */
const BENCH_SECRETS_KEY = Buffer.alloc(32, 1).toString('base64');

function createKey(databaseUrl: string, org: string): string {
  const out = execFileSync(process.execPath, [CLI, 'key:create', '--org', org, '--mode', 'test'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', RATE_SOURCES: 'none', SECRETS_KEY: BENCH_SECRETS_KEY, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  const key = (JSON.parse(out) as { key?: string }).key;
  if (!key) throw new Error(`no key in CLI output: ${out}`);
  return key;
}

/** Every process of the tree under pid (the service and its workers). */
function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (children) for (const c of children.split(/\s+/)) out.push(...processTree(Number(c)));
    }
  } catch {
    // gone
  }
  return out;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, ms) each process has used so far; processes that are gone are left out. */
function cpuByPid(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10); // utime, stime in ticks of 10 ms (USER_HZ 100)
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU time used between two readings by the processes alive at the second (new ones counted from zero). */
function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/**
 * Request bodies that are each sent once in a whole run (payments, each on an invoice of its own):
 * every run takes the next ones, from where the last run stopped.
 */
interface BodyPool {
  bodies: unknown[];
  next: number;
}
/** More requests per second than any side reaches on this kind of machine: the bodies a pooled run is given. */
const POOL_RATE_CAP = 4_000;

/** A load run; with `pool`, its bodies are the pool's next unused ones (and the pool moves past those it sent). */
type RunSpec = LoadSpec & { pool?: BodyPool };

/**
 * A load run, tried a second time when its load process fails (a transient socket or process error must
 * not throw away a run of many minutes); a second failure ends the run, naming its phase.
 */
async function runLoad(spec: RunSpec): Promise<LoadResult> {
  try {
    return await runLoadOnce(spec);
  } catch (e) {
    process.stderr.write(`  load run failed (${(e as Error).message}); trying it once more\n`);
    return runLoadOnce(spec);
  }
}

async function runLoadOnce(spec: RunSpec): Promise<LoadResult> {
  const { pool, ...load } = spec;
  if (!pool) return runLoadProcess(load);
  const wanted = Math.ceil(POOL_RATE_CAP * load.durationSeconds * Math.max(1, load.connections / 16));
  const bodies = pool.bodies.slice(pool.next, pool.next + wanted);
  if (bodies.length < wanted) log(`  only ${bodies.length} unused bodies left for a run that may send ${wanted}: some will repeat`);
  // A failed run may have sent any of its bodies: the pool moves past all of them before the result is known.
  const next = pool.next;
  pool.next += bodies.length;
  const result = await runLoadProcess({ ...load, bodies: (bodies.length ? bodies : pool.bodies).map((b) => JSON.stringify(b)) });
  pool.next = next + Math.min(result.requests, bodies.length);
  return result;
}

function runLoadProcess(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let arg = JSON.stringify(spec);
    if (arg.length > 100_000) {
      // Too long for one argument (Linux caps each at 128 KB): hand it over in a file.
      const file = join(tmpdir(), `ipa-bench-load-${process.pid}-${Date.now()}.json`);
      writeFileSync(file, arg);
      arg = `@${file}`;
    }
    const child = spawn(process.execPath, [LOAD, arg], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.on('exit', (code) => {
      if (arg.startsWith('@')) rmSync(arg.slice(1), { force: true });
      if (code !== 0) return reject(new Error(`load process exited with ${code}`));
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as LoadResult);
      } catch {
        reject(new Error(`load process ended without its result line (last output: ${JSON.stringify(last.slice(0, 200))})`));
      }
    });
  });
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined ? '-' : n.toFixed(digits));

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = loadavg().map((l) => round(l, 2));
  // The checkout being measured, read before anything runs (HEAD may move while a long run goes on).
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  const serverUrl = opt('database-url', process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const dbName = `ipa_bench_${Date.now().toString(36)}`;
  await admin(serverUrl, `CREATE DATABASE "${dbName}"`);
  const databaseUrl = withDatabase(serverUrl, dbName);
  log(`database ${dbName}; ${invoices} invoices, ${payments} payments, ${duration} s per scenario at ${connections} connections`);
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (!flag('keep-db')) await admin(serverUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  };
  try {
    // 1. Schema and data.
    const ds = new DataSource({ ...dataSourceOptions(databaseUrl, 4), entities: [] });
    await ds.initialize();
    await migrate(ds);
    const analytics = (await ds.query(`SELECT 1 FROM pg_proc WHERE proname = 'analytics_rebuild'`)).length > 0;
    const outbox = (await ds.query(`SELECT 1 FROM pg_tables WHERE tablename = 'events'`)).length > 0;
    const seedStart = Date.now();
    // The tables stay as the bulk load leaves them (no statistics, no visibility map) until the list
    // has been measured on them, whatever the server's autovacuum settings.
    for (const table of SEEDED_TABLES) await ds.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    await withRollupsRebuiltAfter(
      ds,
      analytics ? [DASHBOARD_ORG] : [],
      async () => {
        await seedInvoices(ds, invoices, log);
        await seedPayments(ds, payments, invoices, analytics ? dashboardPayments : 0, log, analytics ? dashboardInvoices : 0);
      },
      log,
    );
    await prepareMinimalTables(ds);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const pgVersion = (await ds.query('SHOW server_version'))[0].server_version as string;
    const readIds: string[] = (
      await ds.query(`SELECT id FROM invoices WHERE organization_id = $1 AND mode = 'test' ORDER BY created_at DESC, id DESC LIMIT 1000`, [ORG])
    ).map((r: { id: string }) => r.id);
    const orgInvoices = Number((await ds.query(`SELECT count(*)::int AS n FROM invoices WHERE organization_id = $1 AND mode = 'test'`, [LIST_ORG]))[0].n);
    const depth = Math.min(5000, Math.floor(orgInvoices * 0.8));
    const deepCursor: string = (
      await ds.query(`SELECT id FROM invoices WHERE organization_id = $1 AND mode = 'test' ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`, [
        LIST_ORG,
        depth - 1,
      ])
    )[0].id;
    // The bulk load's dirty pages are written out now, before anything is measured: otherwise the
    // checkpoint it sets off runs during the first scenarios (the list before any ANALYZE comes first).
    // A checkpoint neither analyzes nor vacuums: the tables keep no statistics and no visibility map.
    const checkpointStart = Date.now();
    const checkpointed = await ds.query('CHECKPOINT').then(
      () => true,
      (e: Error) => (log(`CHECKPOINT refused (${e.message}); the load's writes may overlap the first scenarios`), false),
    );
    const checkpointSeconds = (Date.now() - checkpointStart) / 1000;
    await ds.destroy();
    log(`seeded in ${seedSeconds.toFixed(0)} s; ${orgInvoices} test invoices in ${LIST_ORG}; deep page at ${depth}`);
    if (checkpointed) log(`checkpoint after the load: ${checkpointSeconds.toFixed(1)} s`);

    const key = createKey(databaseUrl, ORG);
    const listHeaders = { authorization: `Bearer ${createKey(databaseUrl, LIST_ORG)}` };
    const dashKey = analytics ? createKey(databaseUrl, DASHBOARD_ORG) : null;

    // 2. The service and the floor.
    const port = await freePort();
    const floorPort = await freePort();
    const serviceEnv: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'production',
      // The bench measures the API without chains: production would refuse to start with no live rail.
      ALLOW_NO_LIVE_RAILS: 'true',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SECRETS_KEY: BENCH_SECRETS_KEY,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_ENABLED: 'false',
      // The bench measures the service on this machine: no exchange is asked for rates (the table prices test mode).
      RATE_SOURCES: 'none',
      DB_POOL_SIZE: pool,
      LOG_LEVEL: opt('log-level', 'info'),
    };
    if (workers) serviceEnv.WEB_CONCURRENCY = workers;
    const service = spawn(process.execPath, [MAIN], { env: serviceEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(service);
    const floorEnv = { ...process.env, DATABASE_URL: databaseUrl, FLOOR_ORG: ORG, FLOOR_MODE: 'test', FLOOR_POOL: pool, FLOOR_EVENTS: outbox ? '1' : '0' };
    const floor = spawn(process.execPath, [FLOOR], { env: { ...floorEnv, PORT: String(floorPort) }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(floor);
    // The same floor with prepared statements: measured beside the plain one, for a like-for-like ratio.
    const preparedFloorPort = await freePort();
    const preparedFloor = spawn(process.execPath, [FLOOR], {
      env: { ...floorEnv, PORT: String(preparedFloorPort), FLOOR_PREPARED: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(preparedFloor);
    const minimalPort = await freePort();
    const minimal = spawn(process.execPath, [MINIMAL], { env: { ...floorEnv, PORT: String(minimalPort) }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(minimal);
    const frameworkPort = await freePort();
    const framework = spawn(process.execPath, [FRAMEWORK], { env: { ...floorEnv, PORT: String(frameworkPort) }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(framework);
    // Production refuses plain HTTP unless a trusted proxy (loopback) says the client used TLS.
    const headers = { 'content-type': 'application/json', 'x-forwarded-proto': 'https', authorization: `Bearer ${key}` };
    await waitFor(`http://127.0.0.1:${port}/health`, headers, service, 'service');
    await waitFor(`http://127.0.0.1:${floorPort}/`, {}, floor, 'floor');
    await waitFor(`http://127.0.0.1:${preparedFloorPort}/`, {}, preparedFloor, 'prepared floor');
    await waitFor(`http://127.0.0.1:${minimalPort}/`, {}, minimal, 'minimal floor');
    await waitFor(`http://127.0.0.1:${frameworkPort}/`, {}, framework, 'framework floor');

    let peakRss = 0;
    /** Peak RSS of one service process during the scenario being measured (reset by measure()). */
    let scenarioPeakRss = 0;
    const sampler = setInterval(() => {
      for (const pid of processTree(service.pid!)) {
        const mb = rssMb(pid);
        peakRss = Math.max(peakRss, mb);
        scenarioPeakRss = Math.max(scenarioPeakRss, mb);
      }
    }, 250);

    const svc = (path: string | string[], bodies: unknown[], seconds = duration, extraHeaders: Record<string, string> = {}): LoadSpec => ({
      url: `http://127.0.0.1:${port}`,
      method: 'POST',
      headers: { ...headers, ...extraHeaders },
      paths: Array.isArray(path) ? path : [path],
      bodies: bodies.map((b) => JSON.stringify(b)),
      connections,
      durationSeconds: seconds,
    });
    const flr = (path: string | string[], bodies: unknown[], seconds = duration, port = floorPort): LoadSpec => ({
      url: `http://127.0.0.1:${port}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      paths: Array.isArray(path) ? path : [path],
      bodies: bodies.map((b) => JSON.stringify(b)),
      connections,
      durationSeconds: seconds,
    });
    const createBodies = Array.from({ length: 100 }, (_, i) => ({
      items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: `${10 + i}.50` }],
      customer_email: `payer${i}@example.com`,
      metadata: { order_id: `bench-${i}` },
    }));
    const readPaths = readIds.map((id) => `/invoices/${id}`);
    const readBody = [{ expand: ['items', 'calculations'] }];

    // Warm-up (not measured): JIT, pools, caches.
    log('warming up');
    const warm = Number(opt('warm', String(Math.min(3, duration))));
    /** Warm-up of each scenario measured without a floor (not counted). */
    const scenarioWarm = quick ? 2 : 3;
    await runLoad(flr('/invoices/create', createBodies, warm));
    await runLoad(svc('/invoices/create', createBodies, warm));
    await runLoad(flr(readPaths, readBody, warm));
    await runLoad(flr('/invoices/create', createBodies, warm, preparedFloorPort));
    await runLoad(flr('/invoices/create', createBodies, warm, minimalPort));
    await runLoad(flr('/invoices/create', createBodies, warm, frameworkPort));
    await runLoad(flr(readPaths, readBody, warm, preparedFloorPort));
    await runLoad(svc(readPaths, readBody, warm));

    const rows: Row[] = [];
    /** Runs with a floor alternate in rounds (floors, service; then service, floors, in reverse...) so every side sees the same machine. */
    const rounds = Math.max(1, Math.round(duration / (quick ? 2.5 : 5)));
    const merge = (parts: LoadResult[]): LoadResult => {
      const all = parts.flatMap((p) => p.latencies ?? []).sort((a, b) => a - b);
      const requests = parts.reduce((n, p) => n + p.requests, 0);
      const seconds = parts.reduce((n, p) => n + p.duration_s, 0);
      return {
        rps: requests / seconds,
        requests,
        p50: percentile(all, 50),
        p95: percentile(all, 95),
        p99: percentile(all, 99),
        max: all[all.length - 1] ?? 0,
        non2xx: parts.reduce((n, p) => n + p.non2xx, 0),
        errors: parts.reduce((n, p) => n + p.errors, 0),
        timeouts: parts.reduce((n, p) => n + p.timeouts, 0),
        sample_failure: parts.find((p) => p.sample_failure)?.sample_failure ?? null,
        duration_s: seconds,
      };
    };
    // The floors that run the service's own SQL write into the real tables, so their rollup changes are
    // appended like the service's; the service's background folder would add them up during whatever
    // round came next (about 0.3 ms of the database per invoice). Each round therefore starts with the
    // appended changes folded, outside the measured time, and pays only for the folds of its own writes.
    const foldAppended = async () => {
      if (!analytics) return;
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query(`SELECT analytics_fold(s.organization_id, s.mode) FROM (
                         SELECT organization_id, mode FROM analytics_payment_deltas UNION SELECT organization_id, mode FROM analytics_invoice_deltas
                       ) s ORDER BY s.organization_id, s.mode`);
      } finally {
        await c.end();
      }
    };
    /** The database's backends now (every side's pool; the sides not running are idle). */
    const backends = async (): Promise<number[]> => {
      const q = new Client({ connectionString: databaseUrl });
      await q.connect();
      try {
        return (await q.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map(
          (r: { pid: number }) => r.pid,
        );
      } finally {
        await q.end();
      }
    };
    /** The server's WAL so far (every database's): bytes and full-page images (a page's first change after a checkpoint). */
    const walSoFar = async (): Promise<{ bytes: number; fpi: number; backendWrites: number }> => {
      const q = new Client({ connectionString: databaseUrl });
      await q.connect();
      try {
        const { rows } = await q.query(
          `SELECT w.wal_bytes::float8 AS bytes, w.wal_fpi::float8 AS fpi, b.buffers_backend::float8 AS backend_writes FROM pg_stat_wal w, pg_stat_bgwriter b`,
        );
        return { bytes: rows[0].bytes as number, fpi: rows[0].fpi as number, backendWrites: rows[0].backend_writes as number };
      } finally {
        await q.end();
      }
    };
    /**
     * One run with what it cost per request: CPU of the side's processes and of the database's
     * backends (ms), and WAL written (bytes, full-page images) and shared buffers the backends had to
     * write out themselves (no clean buffer left for them), across the server while it ran.
     */
    const timed = async (spec: RunSpec, side: number[]) => {
      const pg = await backends();
      const [side0, pg0, wal0] = [cpuByPid(side), cpuByPid(pg), await walSoFar()];
      const r = await runLoad(spec);
      const wal1 = await walSoFar();
      // A backend that exits during the run (a pool closing an idle connection) takes its CPU time with it.
      const pgAfter = [...new Set([...pg, ...(await backends())])];
      const per = (n: number) => n / Math.max(1, r.requests);
      return {
        r,
        sideMs: per(cpuSpent(side0, cpuByPid(side))),
        pgMs: per(cpuSpent(pg0, cpuByPid(pgAfter))),
        walBytes: per(wal1.bytes - wal0.bytes),
        fpi: per(wal1.fpi - wal0.fpi),
        backendWrites: per(wal1.backendWrites - wal0.backendWrites),
      };
    };
    type Timed = Awaited<ReturnType<typeof timed>>;
    /** Per request, averaged over a scenario's rounds (weighted by requests). */
    const costOf = (parts: Timed[]) => {
      const n = parts.reduce((t, p) => t + p.r.requests, 0) || 1;
      const avg = (f: (p: Timed) => number, digits: number) => round(parts.reduce((t, p) => t + f(p) * p.r.requests, 0) / n, digits);
      return {
        cpu_ms: avg((p) => p.sideMs, 3),
        db_cpu_ms: avg((p) => p.pgMs, 3),
        wal_bytes: avg((p) => p.walBytes, 0),
        wal_fpi: avg((p) => p.fpi, 3),
        backend_buffer_writes: avg((p) => p.backendWrites, 3),
      };
    };
    const measure = async (
      name: string,
      spec: RunSpec,
      floorSpec?: RunSpec,
      note?: string,
      preparedFloorSpec?: RunSpec,
      minimalSpec?: RunSpec,
      frameworkSpec?: RunSpec,
    ) => {
      let floorResult: LoadResult | undefined;
      let preparedFloorResult: LoadResult | undefined;
      let minimalResult: LoadResult | undefined;
      let frameworkResult: LoadResult | undefined;
      let result: LoadResult;
      let costs: Row['costs'];
      scenarioPeakRss = 0;
      if (floorSpec || minimalSpec) {
        const slice = duration / rounds;
        const f: LoadResult[] = [];
        const pf: LoadResult[] = [];
        const mf: LoadResult[] = [];
        const ff: LoadResult[] = [];
        const s: LoadResult[] = [];
        const sides: Array<[string, RunSpec | undefined, LoadResult[], () => number[]]> = [
          ['floor', floorSpec, f, () => [floor.pid!]],
          ['prepared floor', preparedFloorSpec, pf, () => [preparedFloor.pid!]],
          ['minimal floor', minimalSpec, mf, () => [minimal.pid!]],
          ['framework floor', frameworkSpec, ff, () => [framework.pid!]],
          ['service', spec, s, () => processTree(service.pid!)],
        ];
        const spent = new Map<string, Timed[]>();
        for (let r = 0; r < rounds; r++) {
          // Every other round runs the sides in reverse order, so no side always runs right after the
          // others' writes (their dirty pages being written out, their WAL) or always first.
          for (const [side, sideSpec, results, pids] of r % 2 === 0 ? sides : [...sides].reverse()) {
            if (!sideSpec) continue;
            log(`${side}: ${name} (round ${r + 1}/${rounds})`);
            await foldAppended();
            const t = await timed({ ...sideSpec, durationSeconds: slice, raw: true }, pids());
            log(
              `  ${round(t.r.rps)} req/s, CPU ${round(t.sideMs, 2)} ms, database ${round(t.pgMs, 2)} ms, WAL ${round(t.walBytes)} B (${round(t.fpi, 2)} full pages) per request`,
            );
            results.push(t.r);
            spent.set(side, [...(spent.get(side) ?? []), t]);
          }
        }
        if (f.length) floorResult = merge(f);
        if (pf.length) preparedFloorResult = merge(pf);
        if (mf.length) minimalResult = merge(mf);
        if (ff.length) frameworkResult = merge(ff);
        result = merge(s);
        costs = Object.fromEntries([...spent].map(([side, parts]) => [side, costOf(parts)]));
      } else {
        // Warmed first, as create and read are above: the first second of a new route is its code being
        // compiled and its statement being prepared on each pool connection, once per process lifetime.
        log(`service: ${name} (warming up ${scenarioWarm} s)`);
        await runLoad({ ...spec, durationSeconds: scenarioWarm });
        log(`service: ${name}`);
        result = await runLoad(spec);
      }
      rows.push({
        name,
        result,
        floor: floorResult,
        preparedFloor: preparedFloorResult,
        minimalFloor: minimalResult,
        frameworkFloor: frameworkResult,
        note,
        rssMb: round(scenarioPeakRss),
        costs,
      });
      if (result.sample_failure) log(`  failures in ${name}: ${result.sample_failure}`);
      return result;
    };
    // The filtered list before any ANALYZE: the database as the bulk load left it (no statistics, no
    // visibility map), as after a fresh import or restore while autovacuum has not caught up. Then the
    // tables get what autovacuum would give them, for every other scenario.
    const listFilter = { status: ['PENDING', 'COMPLETED'], price_usd_from: '10', price_usd_to: '900', limit: 20 };
    let neverAnalyzed: string[] = [];
    {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        const { rows: analyzed } = await c.query(
          `SELECT relname FROM pg_stat_user_tables WHERE relname = ANY($1) AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)`,
          [SEEDED_TABLES],
        );
        if (analyzed.length === 0) neverAnalyzed = SEEDED_TABLES;
      } finally {
        await c.end();
      }
    }
    // (--curve-only measures no list.)
    const unanalyzed = curveOnly
      ? null
      : await measure(
          'invoice list, filtered, first page, before any ANALYZE',
          svc('/invoices/list', [listFilter], duration, listHeaders),
          undefined,
          neverAnalyzed.length ? 'tables never analyzed nor vacuumed' : 'some tables were analyzed: not the case meant',
        );
    const unanalyzedRow = unanalyzed ? rows.pop()! : null;
    // The plans of every list filter on the same never-analyzed tables (after the scenario, which they
    // would otherwise have warmed), for the record beside the analyzed ones below.
    let unanalyzedPlans: ExplainedFilter[] = [];
    {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        if (unanalyzed && neverAnalyzed.length) unanalyzedPlans = await explainLists(c, LIST_ORG, 'test');
        await vacuumAnalyzeSeeded(c);
        for (const table of SEEDED_TABLES) await c.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
        // VACUUM dirtied every page it visited (hint bits, the visibility map): written out now, like
        // the load's, or the first write scenario runs beside that write-back.
        const started = Date.now();
        await c.query('CHECKPOINT').then(
          () => log(`checkpoint after VACUUM ANALYZE: ${((Date.now() - started) / 1000).toFixed(1)} s`),
          (e: Error) => log(`CHECKPOINT refused (${e.message}); VACUUM's writes may overlap the write scenarios`),
        );
      } finally {
        await c.end();
      }
    }
    log('tables vacuumed and analyzed');

    const create = await measure(
      'invoice create',
      svc('/invoices/create', createBodies),
      flr('/invoices/create', createBodies),
      undefined,
      flr('/invoices/create', createBodies, duration, preparedFloorPort),
      flr('/invoices/create', createBodies, duration, minimalPort),
      flr('/invoices/create', createBodies, duration, frameworkPort),
    );

    // Payment record in one organization (test helper: a PENDING payment, the invoice moved to
    // WAITING_FOR_CONFIRMATIONS), against the minimal floor inserting a payment and updating its
    // invoice. Every request of the whole run pays an invoice of its own that nothing paid before:
    // a second payment on an invoice already waiting leaves the invoice alone (no update, no event),
    // which would flatter the service while the floor updates its invoice every time. The invoices are
    // copies of the newest one each side created (fresh, not expired), made here in bulk: enough for
    // the warm-up, the scenario and every curve point at POOL_RATE_CAP.
    const payableSeconds = scenarioWarm + duration + CURVE.reduce((t, c) => t + curveSeconds * Math.max(1, c / 16), 0);
    const payable = async (table: string): Promise<BodyPool> => {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        const count = Math.ceil(POOL_RATE_CAP * payableSeconds);
        const { rows } = await c.query(
          `INSERT INTO ${table} (id, organization_id, mode, status, substatus, currency, price, price_usd, customer_email, metadata, redirect_url,
                                 rates_snapshot_id, rates_taken_at, expires_at, created_at, updated_at)
           SELECT 'invoice_' || gen_random_uuid(), t.organization_id, t.mode, 'PENDING', NULL, t.currency, t.price, t.price_usd, t.customer_email,
                  t.metadata, t.redirect_url, t.rates_snapshot_id, t.rates_taken_at, now() + interval '1 hour', now() + g * interval '1 microsecond', now()
             FROM (SELECT * FROM ${table} WHERE organization_id = $1 AND mode = 'test' AND expires_at > now() ORDER BY created_at DESC LIMIT 1) t,
                  generate_series(1, $2::int) g
           RETURNING id`,
          [ORG, count],
        );
        if (rows.length < count) throw new Error(`no fresh invoice in ${table} to copy for the payments`);
        return { bodies: rows.map((r: { id: string }) => ({ invoice_id: r.id, provider_id: 'prov_ethereum_usdt', price: '0.5' })), next: 0 };
      } finally {
        await c.end();
      }
    };
    const payPool = await payable('invoices');
    const minimalPayPool = await payable(MINIMAL_TABLES.invoices);
    // The framework floor pays the same tables' invoices: copies of its own, so neither floor pays one twice.
    const frameworkPayPool = await payable(MINIMAL_TABLES.invoices);
    log(`payment record: ${payPool.bodies.length} fresh invoices for each side`);
    await foldAppended();
    const paySpec = (seconds = duration): RunSpec => ({ ...svc('/test_helpers/payments', [], seconds), pool: payPool });
    const minimalPaySpec = (seconds = duration): RunSpec => ({ ...flr('/test_helpers/payments', [], seconds, minimalPort), pool: minimalPayPool });
    const frameworkPaySpec = (seconds = duration): RunSpec => ({
      ...flr('/test_helpers/payments', [], seconds, frameworkPort),
      pool: frameworkPayPool,
    });
    // Warmed up like every other scenario (the route's code compiled, its statements prepared on each
    // pool connection), on invoices the measured runs do not pay.
    log(`payment record: warming up ${scenarioWarm} s`);
    await runLoad(paySpec(scenarioWarm));
    await runLoad(minimalPaySpec(scenarioWarm));
    await runLoad(frameworkPaySpec(scenarioWarm));
    const payment = await measure('payment record (test helper)', paySpec(), undefined, undefined, undefined, minimalPaySpec(), frameworkPaySpec());

    // The concurrency curve, one organization: minimal floor and service alternate at each point.
    const curve: Array<Record<string, number | string>> = [];
    for (const c of CURVE) {
      const point: Record<string, number | string> = { connections: c };
      for (const [what, minimalSpec, serviceSpec] of [
        ['create', flr('/invoices/create', createBodies, curveSeconds, minimalPort), svc('/invoices/create', createBodies, curveSeconds)],
        ['payment', minimalPaySpec(curveSeconds), paySpec(curveSeconds)],
      ] as Array<[string, RunSpec, RunSpec]>) {
        log(`curve: ${what} at ${c} connections`);
        const mt = await timed({ ...minimalSpec, connections: c }, [minimal.pid!]);
        const st = await timed({ ...serviceSpec, connections: c }, processTree(service.pid!));
        const [m, sv] = [mt.r, st.r];
        point[`${what}_service_cpu_ms`] = round(st.sideMs, 2);
        point[`${what}_service_db_cpu_ms`] = round(st.pgMs, 2);
        point[`${what}_minimal_cpu_ms`] = round(mt.sideMs, 2);
        point[`${what}_minimal_db_cpu_ms`] = round(mt.pgMs, 2);
        // Where both sides are CPU-bound (from 4 connections on here) the throughput ratio follows this
        // one: what a request costs the minimal floor and its database over what it costs the service
        // and its database. It moves much less with the machine's speed than the throughput itself.
        point[`${what}_cpu_ratio_minimal`] = round((mt.sideMs + mt.pgMs) / Math.max(1e-9, st.sideMs + st.pgMs), 2);
        point[`${what}_service_wal_bytes`] = round(st.walBytes);
        point[`${what}_service_wal_fpi`] = round(st.fpi, 3);
        point[`${what}_minimal_wal_bytes`] = round(mt.walBytes);
        point[`${what}_minimal_wal_fpi`] = round(mt.fpi, 3);
        point[`${what}_mean_latency_ms`] = round((c / Math.max(1, sv.rps)) * 1000, 2);
        point[`${what}_rps`] = round(sv.rps);
        point[`${what}_p99_ms`] = round(sv.p99, 1);
        point[`${what}_minimal_rps`] = round(m.rps);
        point[`${what}_ratio_minimal`] = round(sv.rps / m.rps, 2);
        point[`${what}_errors`] = sv.non2xx + sv.errors + sv.timeouts;
        point[`${what}_minimal_errors`] = m.non2xx + m.errors + m.timeouts;
        if (sv.sample_failure) log(`  failures in curve ${what} at ${c}: ${sv.sample_failure}`);
      }
      point.load_average = loadavg()[0].toFixed(2);
      curve.push(point);
    }
    const cpuLines = [
      '| connections | create: service CPU ms | its database CPU ms | mean latency ms | minimal floor CPU ms | its database CPU ms | CPU ratio | payment: service CPU ms | its database CPU ms | mean latency ms | minimal floor CPU ms | its database CPU ms | CPU ratio |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...curve.map(
        (p) =>
          `| ${p.connections} | ${p.create_service_cpu_ms} | ${p.create_service_db_cpu_ms} | ${p.create_mean_latency_ms} | ${p.create_minimal_cpu_ms} | ${p.create_minimal_db_cpu_ms} | ${p.create_cpu_ratio_minimal} | ${p.payment_service_cpu_ms} | ${p.payment_service_db_cpu_ms} | ${p.payment_mean_latency_ms} | ${p.payment_minimal_cpu_ms} | ${p.payment_minimal_db_cpu_ms} | ${p.payment_cpu_ratio_minimal} |`,
      ),
    ];
    // What a request of the write scenarios cost each side, for comparison with the curve's figures.
    const costLines = [
      '| scenario | side | CPU ms | database CPU ms | WAL bytes | full-page images | buffers written by backends |',
      '|---|---|---:|---:|---:|---:|---:|',
      ...rows.flatMap((r) =>
        Object.entries(r.costs ?? {}).map(
          ([side, c]) => `| ${r.name} | ${side} | ${c.cpu_ms} | ${c.db_cpu_ms} | ${c.wal_bytes} | ${c.wal_fpi} | ${c.backend_buffer_writes} |`,
        ),
      ),
    ];
    const curveLines = [
      '| connections | create req/s | minimal floor | ratio | create p99 ms | payment req/s | minimal floor | ratio | payment p99 ms | errors | load avg |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...curve.map(
        (p) =>
          `| ${p.connections} | ${p.create_rps} | ${p.create_minimal_rps} | ${p.create_ratio_minimal} | ${p.create_p99_ms} | ${p.payment_rps} | ${p.payment_minimal_rps} | ${p.payment_ratio_minimal} | ${p.payment_p99_ms} | ${Number(p.create_errors) + Number(p.payment_errors)} | ${p.load_average} |`,
      ),
    ];
    const deadlocks = await (async () => {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        return Number((await c.query(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`)).rows[0].deadlocks);
      } finally {
        await c.end();
      }
    })();
    log(`curve done; deadlocks in the database so far: ${deadlocks}`);
    if (curveOnly) {
      const record = {
        started_at: startedAt.toISOString(),
        finished_at: new Date().toISOString(),
        commit,
        quick,
        curve_only: true,
        settings: { invoices, duration_s: duration, curve_seconds: curveSeconds, workers, pool },
        machine: {
          cpus: cpus().length,
          cpu_model: cpus()[0]?.model ?? 'unknown',
          node: process.version,
          load_average_at_start: loadAtStart,
          load_average_at_end: loadavg().map((l) => round(l, 2)),
        },
        scenarios: rows.map((r) => ({
          name: r.name,
          service: r.result,
          floor: r.floor ?? null,
          prepared_floor: r.preparedFloor ?? null,
          minimal_floor: r.minimalFloor ?? null,
          framework_floor: r.frameworkFloor ?? null,
          costs: r.costs ?? null,
        })),
        create_ratio: round(create.rps / rows[0].floor!.rps, 2),
        create_ratio_minimal: round(create.rps / rows[0].minimalFloor!.rps, 2),
        payment_ratio_minimal: round(payment.rps / rows[1].minimalFloor!.rps, 2),
        ...writeRatios(rows[0], rows[1]),
        deadlocks,
        curve,
        curve_table: curveLines.join('\n'),
        cpu_table: cpuLines.join('\n'),
        cost_table: costLines.join('\n'),
      };
      mkdirSync(RESULTS, { recursive: true });
      const file = join(RESULTS, `${startedAt.toISOString().replace(/[:.]/g, '-')}-curve.json`);
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      process.stdout.write(
        `\n${curveLines.join('\n')}\n\nCPU per request:\n${cpuLines.join('\n')}\n\nWrite scenarios, per request:\n${costLines.join('\n')}\n\nresults in ${file}\n${JSON.stringify({ create_ratio: record.create_ratio, create_ratio_minimal: record.create_ratio_minimal, payment_ratio_minimal: record.payment_ratio_minimal, create_cpu_ratio_minimal: record.create_cpu_ratio_minimal, payment_cpu_ratio_minimal: record.payment_cpu_ratio_minimal, create_framework_ratio_minimal: record.create_framework_ratio_minimal, payment_framework_ratio_minimal: record.payment_framework_ratio_minimal, deadlocks })}\n`,
      );
      return;
    }
    const read = await measure(
      'invoice read (items, calculations)',
      svc(readPaths, readBody),
      flr(readPaths, readBody),
      undefined,
      flr(readPaths, readBody, duration, preparedFloorPort),
    );
    const list = await measure('invoice list, filtered, first page', svc('/invoices/list', [listFilter], duration, listHeaders));
    const deep = await measure(
      `invoice list, page at ${depth} (starting_after)`,
      svc('/invoices/list', [{ limit: 20, starting_after: deepCursor }], duration, listHeaders),
    );
    await measure(
      `invoice list, page at ${depth} (offset)`,
      svc('/invoices/list', [{ limit: 20, offset: depth }], duration, listHeaders),
      undefined,
      'for comparison',
    );
    await measure('payments list, first page', svc('/payments', [{ limit: 20 }], duration, listHeaders));

    if (unanalyzedRow) rows.push(unanalyzedRow);
    // A merchant whose invoices the statistics have never seen (a fresh import, a new merchant): loaded
    // now, not analyzed nor vacuumed (the rest of the table was), as many test invoices as LIST_ORG has,
    // then listed with the same filter. The sessions' generic plans do not depend on the organization, so
    // what differs from the list above is the visibility map (every index entry is checked in the table).
    const freshCount = orgInvoices;
    {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        await c.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Bench fresh import', now())`, [FRESH_ORG]);
        await c.query(
          `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, metadata, rates_snapshot_id, expires_at, created_at, updated_at)
           SELECT 'invoice_fresh_' || g, $1, 'test', (ARRAY['PENDING','COMPLETED','VOIDED','PROCESSING','WAITING_FOR_CONFIRMATIONS','PARTIALLY_PAID'])[g % 6 + 1],
                  'USD', (g % 1000) + 1, (g % 1000) + 1, '{}'::jsonb, 'rates_bundled_20261120', now() + interval '1 day',
                  now() - g * interval '1 minute', now() - g * interval '1 minute'
             FROM generate_series(1, $2::int) g`,
          [FRESH_ORG, freshCount],
        );
      } finally {
        await c.end();
      }
    }
    const freshHeaders = { authorization: `Bearer ${createKey(databaseUrl, FRESH_ORG)}` };
    const fresh = await measure(
      `invoice list, filtered, first page, ${freshCount} invoices loaded after the last ANALYZE`,
      svc('/invoices/list', [listFilter], duration, freshHeaders),
    );
    await measure(
      'quote (USD -> BITCOIN)',
      svc('/pay/quote', [{ currency: 'BITCOIN', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '125.00' }] }]),
    );
    let dash365: LoadResult | null = null;
    const dashHeaders: Record<string, string> = dashKey ? { authorization: `Bearer ${dashKey}` } : {};
    const probe = dashKey
      ? await fetch(`http://127.0.0.1:${port}/analytics/dashboard`, {
          method: 'POST',
          headers: { ...headers, ...dashHeaders },
          body: JSON.stringify({ period: 'last_30_days' }),
        })
      : null;
    if (probe && probe.status === 200) {
      await measure('dashboard last_30_days', svc('/analytics/dashboard', [{ period: 'last_30_days' }], duration, dashHeaders));
      dash365 = await measure(
        `dashboard last_365_days (${dashboardPayments} payments, ${dashboardInvoices} invoices)`,
        svc('/analytics/dashboard', [{ period: 'last_365_days' }], duration, dashHeaders),
      );
    } else {
      const why = 'not measured: the analytics dashboard is not in this build';
      rows.push({ name: 'dashboard last_30_days', result: null, note: why }, { name: 'dashboard last_365_days', result: null, note: why });
    }
    clearInterval(sampler);

    // The plans of every list filter on this data (after the load, so they do not disturb it).
    let plans: ExplainedFilter[] = [];
    const pc = new Client({ connectionString: databaseUrl });
    await pc.connect();
    try {
      plans = await explainLists(pc, LIST_ORG, 'test');
    } finally {
      await pc.end();
    }

    // 3. Report.
    const readRow = rows.find((r) => r.name.startsWith('invoice read'))!;
    const errors =
      rows.reduce((n, r) => n + (r.result ? r.result.non2xx + r.result.errors + r.result.timeouts : 0), 0) +
      curve.reduce((n, p) => n + Number(p.create_errors) + Number(p.payment_errors), 0);
    const lines = [
      `| scenario | req/s | p50 ms | p95 ms | p99 ms | errors | floor req/s | floor p99 ms | ratio | prepared floor req/s | ratio to it | minimal floor req/s | ratio to it | framework floor req/s | ratio to it | peak RSS MB |`,
      `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
      ...rows.map((r) => {
        const e = r.result ? r.result.non2xx + r.result.errors + r.result.timeouts : null;
        const ratioTo = (floor: LoadResult | null | undefined) => rpsRatio(r.result, floor)?.toFixed(2) ?? '-';
        return `| ${r.name}${r.note ? ` (${r.note})` : ''} | ${fmt(r.result?.rps, 0)} | ${fmt(r.result?.p50)} | ${fmt(r.result?.p95)} | ${fmt(r.result?.p99)} | ${e ?? '-'} | ${fmt(r.floor?.rps, 0)} | ${fmt(r.floor?.p99)} | ${ratioTo(r.floor)} | ${fmt(r.preparedFloor?.rps, 0)} | ${ratioTo(r.preparedFloor)} | ${fmt(r.minimalFloor?.rps, 0)} | ${ratioTo(r.minimalFloor)} | ${fmt(r.frameworkFloor?.rps, 0)} | ${ratioTo(r.frameworkFloor)} | ${r.rssMb ?? '-'} |`;
      }),
    ];
    const summary = {
      ok: true,
      create_rps: round(create.rps),
      create_floor_rps: round(rows[0].floor!.rps),
      create_ratio: round(create.rps / rows[0].floor!.rps, 2),
      create_minimal_floor_rps: round(rows[0].minimalFloor!.rps),
      create_ratio_minimal: round(create.rps / rows[0].minimalFloor!.rps, 2),
      payment_rps: round(payment.rps),
      payment_minimal_floor_rps: round(rows[1].minimalFloor!.rps),
      payment_ratio_minimal: round(payment.rps / rows[1].minimalFloor!.rps, 2),
      ...writeRatios(rows[0], rows[1]),
      read_rps: round(read.rps),
      read_floor_rps: round(readRow.floor!.rps),
      read_ratio: round(read.rps / readRow.floor!.rps, 2),
      list_p99_ms: list.p99,
      list_deep_p99_ms: deep.p99,
      list_unanalyzed_p99_ms: unanalyzed?.p99 ?? null,
      list_fresh_org_p99_ms: fresh.p99,
      dashboard_365_p95_ms: dash365 ? dash365.p95 : null,
      rss_mb: round(peakRss),
      errors,
    };
    const machine = {
      hostname: hostname(),
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      memory_gb: round(totalmem() / 2 ** 30, 1),
      kernel: release(),
      node: process.version,
      postgres: pgVersion,
      load_average_at_start: loadAtStart,
    };
    const record = {
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      commit,
      quick,
      settings: {
        service: MAIN,
        database: describeServer(serverUrl),
        floor_records_events: outbox,
        rounds,
        invoices,
        payments,
        dashboard_payments: analytics ? dashboardPayments : null,
        dashboard_invoices: analytics ? dashboardInvoices : null,
        duration_s: duration,
        connections,
        workers: workers || '1 (WEB_CONCURRENCY unset)',
        pool,
        log_level: serviceEnv.LOG_LEVEL,
        deep_page_at: depth,
      },
      machine: { ...machine, load_average_at_end: loadavg().map((l) => round(l, 2)) },
      seed_seconds: round(seedSeconds),
      checkpoint_after_seed_seconds: checkpointed ? round(checkpointSeconds) : null,
      scenarios: rows.map((r) => ({
        name: r.name,
        note: r.note ?? null,
        service: r.result,
        floor: r.floor ?? null,
        prepared_floor: r.preparedFloor ?? null,
        minimal_floor: r.minimalFloor ?? null,
        framework_floor: r.frameworkFloor ?? null,
        peak_rss_mb: r.rssMb ?? null,
        costs: r.costs ?? null,
      })),
      // Like-for-like: the floor sending the same prepared statements the service sends.
      prepared_floor: {
        create_floor_rps: round(rows[0].preparedFloor!.rps),
        create_ratio: round(create.rps / rows[0].preparedFloor!.rps, 2),
        read_floor_rps: round(readRow.preparedFloor!.rps),
        read_ratio: round(read.rps / readRow.preparedFloor!.rps, 2),
      },
      table: lines.join('\n'),
      // One organization: create and payment record against the minimal floor at 1, 4, 16 and 64 connections.
      curve,
      curve_table: curveLines.join('\n'),
      cpu_table: cpuLines.join('\n'),
      deadlocks,
      list_plans: plans,
      list_plans_unanalyzed: unanalyzedPlans,
      summary,
      dashboard_note: dash365 ? null : 'dashboard figures are null: the analytics dashboard is not in this build',
    };
    mkdirSync(RESULTS, { recursive: true });
    const otherServer = argv.includes('--database-url');
    const otherPool = pool !== defaultPool;
    const file = join(
      RESULTS,
      `${startedAt.toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}${argv.includes('--service') ? '-other-build' : ''}${otherServer ? '-other-database-server' : ''}${otherPool ? `-pool-${pool}` : ''}.json`,
    );
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    // The latest-*.json files are the default setup's: this build, the default database server and pool.
    if (!argv.includes('--service') && !otherServer && !otherPool)
      writeFileSync(join(RESULTS, quick ? 'latest-quick.json' : 'latest.json'), `${JSON.stringify(record, null, 2)}\n`);
    const planLines = (explained: ExplainedFilter[]) =>
      explained.map(
        (p) =>
          `  ${p.list} / ${p.filter}: ${p.total} matches; count alone ${p.count_ms} ms [${p.count_plan.join(', ')}]; ` +
          `statement as sent (total and page) ${p.statement_ms} ms [${p.statement_plan.join(', ')}]`,
      );
    if (unanalyzedPlans.length) {
      process.stdout.write(`\nEXPLAIN ANALYZE of the list filters before any ANALYZE (${LIST_ORG}, test):\n${planLines(unanalyzedPlans).join('\n')}\n`);
    }
    process.stdout.write(`\nEXPLAIN ANALYZE of the list filters (${LIST_ORG}, test):\n${planLines(plans).join('\n')}\n`);
    process.stdout.write(`\n${lines.join('\n')}\n\npeak RSS of one service process: ${fmt(peakRss)} MB; results in ${file}\n`);
    process.stdout.write(`against the floor with prepared statements: ${JSON.stringify(record.prepared_floor)}\n`);
    process.stdout.write(
      `\none organization, service against the minimal floor (deadlocks: ${deadlocks}):\n${curveLines.join('\n')}\n\nCPU per request:\n${cpuLines.join('\n')}\n\nWrite scenarios, per request:\n${costLines.join('\n')}\n`,
    );
    if (!dash365) process.stdout.write('dashboard_365_p95_ms is null: the analytics dashboard is not in this build\n');
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await cleanup();
  }
}

function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

main()
  .then(() => process.exit(0))
  .catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    // A failed run still ends with its JSON line, saying where and why, so a caller never reads half a result.
    const failure = { ok: false, failed_phase: phase, error: (e as Error).message ?? String(e) };
    process.stdout.write(`${JSON.stringify(failure)}\n`);
    process.exit(1);
  });
