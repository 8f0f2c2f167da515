import 'reflect-metadata';
import cluster, { Worker } from 'node:cluster';
import type { Server } from 'node:http';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { INestApplicationContext } from '@nestjs/common';
import { createCliContext, createHttpApp, resolveDatabase, ResolvedDatabase, runMigrations } from './bootstrap';
import { preflightAfterListen } from './cli/doctor';
import { mountDocs } from './docs';
import { checkModuleSettings } from './module-registry';
import { IssueMemberLinkCommand } from './modules/console';
import { CountOrganizationsQuery, CreateOrganizationCommand } from './modules/organizations';
import { loadWebhooksConfig, SealStoredSecretsCommand } from './modules/webhooks';
import { checkLiveRails, SealWalletKeysCommand } from './modules/rails';
import { AppConfig, loadConfig } from './shared/config/app-config';
import { startupFailure } from './shared/config/startup-failure';
import { HttpDrain } from './shared/http/graceful-shutdown';
import { createRootLogger } from './shared/logging/logger';
import { loadRatesConfig } from './modules/rates';
import { BackgroundWork } from './shared/lifecycle/background-work';
import { SecretBox } from './shared/crypto/secret-box';
import { TransactionRunner } from './shared/db/transaction-runner';
import { sealStoredAnswers } from './shared/idempotency/idempotency';
import { withEmbeddedPassword } from './shared/db/embedded-postgres';

/** Set by the primary process for its workers: the embedded database it serves. */
const WORKER_DATABASE_URL = 'IPA_WORKER_DATABASE_URL';

const redact = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

/** The address without its password, for the workers' environment. */
function withoutPassword(url: string): string {
  const plain = new URL(url);
  plain.password = '';
  return plain.toString();
}

/** Migrations (once, under an advisory lock) and, on a fresh embedded database, the demo organization. */
async function prepareDatabase(app: INestApplicationContext, config: AppConfig, embedded: boolean, logger: Logger): Promise<void> {
  const applied = await runMigrations(app);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  await sealStoredSecrets(app, logger);
  if (embedded && config.DEMO_ORGANIZATION && (await app.get(QueryBus).execute(new CountOrganizationsQuery())) === 0) {
    const demo = await app.get(CommandBus).execute(new CreateOrganizationCommand('Demo organization'));
    const owner = await app.get(CommandBus).execute(new IssueMemberLinkCommand(demo.organization_id, DEMO_OWNER_EMAIL, 'invite', 'owner'));
    process.stdout.write(demoBlock(demo.organization_id, demo.test_key, new URL(owner.url).pathname, config));
  }
}

/** The demo organization's owner in the console (example.com is reserved for examples: no mail goes anywhere). */
const DEMO_OWNER_EMAIL = 'owner@example.com';

/** The demo key and the console's one-time sign-in link, framed apart from the JSON log lines around them, with where to go next. */
function demoBlock(organizationId: string, testKey: string, signInPath: string, config: AppConfig): string {
  const host = config.listenHost === '0.0.0.0' ? '127.0.0.1' : config.listenHost;
  const base = config.publicBaseUrl ?? `http://${host}:${config.PORT}`;
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    `Demo organization created: ${organizationId}`,
    `Test key (shown once): ${testKey}`,
    '',
    `Try it:   curl -s ${base}/auth/debug_token -H "Authorization: Bearer ${testKey}"`,
    `Docs:     ${base}/docs`,
    `Console:  ${base}${signInPath}`,
    `          (one-time link, 24 h: set a password for ${DEMO_OWNER_EMAIL}, the demo's owner, and sign in)`,
    rule,
    '',
    '',
  ].join('\n');
}

/**
 * Secrets at rest: values written before sealing existed, or sealed with a key now listed in
 * SECRETS_KEYS_OLD, are sealed again with SECRETS_KEY (reads open both in the meantime).
 */
async function sealStoredSecrets(app: INestApplicationContext, logger: Logger): Promise<void> {
  const endpoints = await app.get(CommandBus).execute(new SealStoredSecretsCommand());
  const box = app.get(SecretBox);
  let answers = 0;
  for (let n = -1; n !== 0;) answers += n = await app.get(TransactionRunner).run((m) => sealStoredAnswers(m, box, 200));
  const walletKeys = await app.get(CommandBus).execute(new SealWalletKeysCommand());
  if (endpoints || answers || walletKeys) {
    logger.info(
      { webhook_endpoints: endpoints, idempotent_answers: answers, wallet_keys: walletKeys, key_id: box.currentKeyId },
      'stored secrets sealed with SECRETS_KEY',
    );
  }
}

/** The last step of a stop: the embedded database this process serves (if any), then exit with `code` (1 if that failed). */
async function stopAndExit(database: ResolvedDatabase, logger: Logger, code: number): Promise<never> {
  try {
    await database.embedded?.stop();
  } catch (e) {
    code = 1;
    logger.error({ err: e }, 'error while stopping the embedded database');
  }
  logger.info({ code }, 'stopped');
  process.exit(code);
}

/**
 * One HTTP server process: the whole service (WEB_CONCURRENCY=1) or one cluster worker. On SIGTERM
 * or SIGINT it stops accepting connections, lets requests in flight finish (at most
 * SHUTDOWN_TIMEOUT_MS), closes idle keep-alive connections, closes the application (the webhook
 * dispatcher stops claiming and finishes its attempts in flight, then the pool closes), stops the
 * embedded database it owns, and exits 0.
 */
async function serve(config: AppConfig, logger: Logger, startedAt: bigint): Promise<void> {
  const workerUrl = cluster.isWorker ? process.env[WORKER_DATABASE_URL] : undefined;
  let database: ResolvedDatabase;
  // The primary's embedded database: its address comes without the password, which the worker reads from DATA_DIR.
  if (workerUrl) database = { url: withEmbeddedPassword(config.DATA_DIR, workerUrl), embedded: null, ownsEmbedded: false };
  else if (cluster.isWorker) database = { url: config.DATABASE_URL!, embedded: null, ownsEmbedded: false };
  else database = await resolveDatabase(config, false);
  if (database.embedded) logger.info({ url: redact(database.url), dir: config.DATA_DIR }, 'embedded PostgreSQL started (set DATABASE_URL for production)');

  const drain = new HttpDrain();
  const app = await createHttpApp(config, database.url, logger, undefined, drain);
  // Docs routes go in before init(): init() installs the catch-all 404 handler. DOCS_ENABLED=false
  // leaves them out, so /docs and /openapi.json answer 404 like any unknown path.
  if (config.DOCS_ENABLED) mountDocs(app, { admin: !!config.ADMIN_API_TOKEN, clock: config.CLOCK_CONTROL });
  await app.init();
  // A worker's database was prepared by the primary before it was started.
  if (!cluster.isWorker) await prepareDatabase(app, config, !!database.embedded, logger);

  let stopping = false;
  // Our own signal handling (not Nest's shutdown hooks, which re-raise the signal).
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, in_flight: drain.active }, 'shutting down: no new connections, finishing requests in flight');
    let code = 0;
    try {
      const result = await drain.drain(app.getHttpServer(), config.SHUTDOWN_TIMEOUT_MS);
      if (result.cut) logger.warn({ cut: result.cut, waited_ms: result.waitedMs }, 'requests still running at SHUTDOWN_TIMEOUT_MS were cut');
      else logger.info({ waited_ms: result.waitedMs }, 'requests in flight finished');
    } catch (e) {
      logger.error({ err: e }, 'error while draining HTTP connections');
    }
    try {
      await app.close();
    } catch (e) {
      code = 1;
      logger.error({ err: e }, 'error while closing the application');
    }
    await stopAndExit(database, logger, code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // A worker whose primary is gone stops too.
  if (cluster.isWorker) process.on('disconnect', () => void shutdown('primary gone'));

  const server: Server = app.getHttpServer();
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  // Node expects the headers timeout above the keep-alive one, or a reused connection's next request can be cut.
  server.headersTimeout = Math.max(server.headersTimeout, config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000);
  await app.listen(config.PORT, config.listenHost);
  // A stop that came while the process was still reaching its port (a cluster worker starting on a
  // loaded machine) is closing the application: no background work starts on it.
  if (stopping) return;
  // After the migrations: the modules' background workers start (each registered itself from its
  // onApplicationBootstrap: the webhook dispatcher, the invoice sweeper, the analytics folder, the chain
  // watchers, the rates refresher). The CLI never opens this gate, so it runs none of them.
  app.get(BackgroundWork).ready();
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = typeof address === 'object' && address ? address.address : config.listenHost;
  logger.info({ host, port, startup_ms: Number(process.hrtime.bigint() - startedAt) / 1e6 }, `listening on ${host} port ${port}`);
  // The go-live preflight (cli doctor's checks), once, in the background: readiness does not wait for it.
  // Every process keeps its gauge; the first one logs what did not pass.
  void preflightAfterListen(app, logger, !cluster.isWorker || cluster.worker?.id === 1);
}

/**
 * Node flags for the workers: the primary's own, plus three heap settings unless the operator chose
 * them (in the node flags or NODE_OPTIONS):
 * - a young generation of 8 MB semi-spaces: V8's default (16 MB) bought no throughput on the
 *   benchmark and cost each worker about 25 MB of resident memory under load;
 * - old space grown by 100% over what survived the last full collection: V8 lets it grow up to
 *   about 4x, so a worker holding ~50 MB of live objects reached ~250 MB before collecting; at 2x
 *   it stays near 180 MB for the same throughput (full collections of this heap take a few ms);
 * - no allocation-site pretenuring: V8 learns from objects that survive young collections to
 *   allocate later objects of the same site straight in the old space. Invoice creates (20-80 ms
 *   each, their objects outlive young collections) taught it that for sites every request shares
 *   (routing, headers, handler closures), and from then on every short request filled the old space
 *   with garbage: the old space grew 1.5 MB per young collection instead of 0.9, a full collection
 *   (a 4-10 ms pause of every request in flight) came every 0.75 s instead of 1.2 s, and the list's
 *   p99 after creates went from 16-17 to 23-26 ms.
 */
function workerExecArgv(execArgv: string[], nodeOptions = ''): string[] {
  const out = [...execArgv];
  if (!chosenFlag(/^--max[-_]semi[-_]space[-_]size/, execArgv, nodeOptions)) out.push('--max-semi-space-size=8');
  for (const [flag, setting] of HEAP_SETTINGS) if (!chosenFlag(flag, execArgv, nodeOptions)) out.push(`--${setting}`);
  return out;
}

/** Heap settings every server process gets unless the operator chose them (see workerExecArgv). */
const HEAP_SETTINGS: Array<[RegExp, string]> = [
  [/^--heap[-_]growing[-_]percent/, 'heap-growing-percent=100'],
  [/^--(no-)?allocation[-_]site[-_]pretenuring/, 'no-allocation-site-pretenuring'],
];

function chosenFlag(flag: RegExp, execArgv: string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((f) => flag.test(f));
}

/**
 * A single process (WEB_CONCURRENCY=1) gets the workers' heap settings too. V8 reads both flags when
 * it collects, so setting them now, before the application starts, takes effect; the young
 * generation's size is fixed at start-up and stays V8's unless the operator passes
 * --max-semi-space-size.
 */
function applyHeapSettings(): void {
  for (const [flag, setting] of HEAP_SETTINGS) {
    if (!chosenFlag(flag, process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString(`--${setting}`);
  }
}

/** Workers that die before listening, this many times in a row, stop the service (exit 1). */
const MAX_FAILED_STARTS = 3;

/**
 * WEB_CONCURRENCY > 1: this process prepares the database (it owns the embedded one, if used),
 * then runs that many workers sharing the port, replaces a worker that dies, and on SIGTERM or
 * SIGINT has every worker drain and stop before it stops the database and exits. Workers that
 * cannot start at all (MAX_FAILED_STARTS in a row without one listening) stop it with exit code 1.
 */
async function runPrimary(config: AppConfig, logger: Logger): Promise<void> {
  const database = await resolveDatabase(config, false);
  if (database.embedded) logger.info({ url: redact(database.url), dir: config.DATA_DIR }, 'embedded PostgreSQL started (set DATABASE_URL for production)');
  const context = await createCliContext(config, database.url, logger);
  try {
    await prepareDatabase(context, config, !!database.embedded, logger);
  } finally {
    await context.close();
  }

  const workerEnv = database.embedded ? { [WORKER_DATABASE_URL]: withoutPassword(database.url) } : {};
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, process.env.NODE_OPTIONS) });
  let stopping = false;
  // Workers that died before they ever listened, in a row: the port is taken, the database refuses
  // us... Replacing them again and again would hide that from the operator's supervisor.
  let failedStarts = 0;
  const listening = new WeakSet<Worker>();
  const fork = () => cluster.fork(workerEnv);
  cluster.on('listening', (worker: Worker) => {
    listening.add(worker);
    failedStarts = 0;
  });
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) return;
    if (!listening.has(worker) && ++failedStarts >= MAX_FAILED_STARTS) {
      logger.error({ worker_pid: worker.process.pid, code, signal, failed_starts: failedStarts }, 'workers keep failing to start; stopping');
      void shutdown('start-failure', 1);
      return;
    }
    logger.error({ worker_pid: worker.process.pid, code, signal }, 'worker stopped unexpectedly; starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, 1000);
  });
  for (let i = 0; i < config.WEB_CONCURRENCY; i++) fork();
  logger.info({ workers: config.WEB_CONCURRENCY }, 'cluster started');

  const shutdown = async (signal: string, stopCode = 0) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    logger.info({ signal, workers: workers.length }, 'stopping workers');
    let code = stopCode;
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            const hardStop = setTimeout(() => w.process.kill('SIGKILL'), config.SHUTDOWN_TIMEOUT_MS + 15_000);
            w.once('exit', (exitCode, signal) => {
              clearTimeout(hardStop);
              // A worker still starting has no handler yet and ends on the signal itself: that is fine.
              if (exitCode !== 0 && !(exitCode === null && signal === 'SIGTERM')) code = 1;
              resolve();
            });
            w.process.kill('SIGTERM');
          }),
      ),
    );
    await stopAndExit(database, logger, code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * Outside production, one warning line (once per start, from the first process) says what is
 * relaxed, so nobody runs that mode in front of real traffic without knowing it.
 */
function warnOutsideProduction(config: AppConfig, logger: Logger): void {
  // Without live rate sources, live invoices are priced from the rates table, which only
  // `rates:import` moves: said in production too, where nothing else is relaxed.
  const staticPrices = loadRatesConfig(process.env).hasSources
    ? []
    : ['live prices are static (RATE_SOURCES off: rates from the table, moved only by rates:import)'];
  if (config.isProduction) {
    if (staticPrices.length) logger.warn({ mode: config.NODE_ENV, relaxed: staticPrices }, `${staticPrices[0]}.`);
    return;
  }
  const webhooks = loadWebhooksConfig(process.env).webhookAllowPrivate ? ['webhooks to private, loopback and plain-http addresses allowed'] : [];
  const relaxed = [...config.relaxations, ...webhooks, ...staticPrices];
  if (!relaxed.length) return;
  const where = config.HOST ? `listening on ${config.HOST} (HOST)` : 'listening on 127.0.0.1 only (set HOST to listen elsewhere)';
  logger.warn(
    { mode: config.NODE_ENV, relaxed, host: config.listenHost },
    `${config.NODE_ENV} mode (NODE_ENV is not production): ${relaxed.join('; ')}; ${where}. Set NODE_ENV=production for real traffic.`,
  );
}

async function main(): Promise<void> {
  const startedAt = process.hrtime.bigint();
  const config = loadConfig();
  // The modules' own settings are checked now too, every manifest's loader (their modules read them again when they start):
  // a bad value stops the service before it says anything else.
  checkModuleSettings(process.env);
  const rails = checkLiveRails(process.env, config.isProduction);
  const logger = createRootLogger(config.LOG_LEVEL, { buffered: true });
  if (cluster.isPrimary) warnOutsideProduction(config, logger);
  if (rails && cluster.isPrimary) {
    if (rails.refuse) {
      // Said at error level and on stderr, then the process ends with code 1 once the log line is out.
      logger.error({ event: 'no_live_rails', fix: 'docs/going-live.md' }, rails.message);
      process.stderr.write(`${rails.message}\n`);
      process.exitCode = 1;
      return;
    }
    logger.warn({ event: 'no_live_rails', allow_no_live_rails: true }, rails.message);
  }
  if (config.WEB_CONCURRENCY > 1 && cluster.isPrimary) await runPrimary(config, logger);
  else {
    if (cluster.isPrimary) applyHeapSettings();
    await serve(config, logger, startedAt);
  }
}

main().catch((e) => {
  const failure = startupFailure(e);
  process.stderr.write(failure.stderr);
  process.exit(failure.code);
});
