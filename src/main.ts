import 'reflect-metadata';
import cluster, { Worker } from 'node:cluster';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import { createCliContext, resolveDatabase } from './bootstrap';
import { AppConfig } from './shared/config/app-config';
import { startupFailure } from './shared/config/startup-failure';
import { checkSettings, openService, prepareDatabase, PROCESS_OUTPUT, redact, stopDatabase } from './service';

/** Set by the primary process for its workers: the embedded database it serves. */
const WORKER_DATABASE_URL = 'IPA_WORKER_DATABASE_URL';

/** The address without its password, for the workers' environment. */
function withoutPassword(url: string): string {
  const plain = new URL(url);
  plain.password = '';
  return plain.toString();
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
    await prepareDatabase(context, config, !!database.embedded, logger, PROCESS_OUTPUT);
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
    process.exit(await stopDatabase(database, logger, code));
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * One HTTP server process: the whole service (WEB_CONCURRENCY=1) or one cluster worker (service.ts). On SIGTERM
 * or SIGINT it stops (openService's stop: drain, close, the embedded database it owns) and exits with the stop's
 * code; a worker whose primary is gone stops too. The signals are ours, not Nest's shutdown hooks (which re-raise
 * the signal), and are wired before it listens: a stop that comes while it is still reaching its port holds.
 */
async function serve(config: AppConfig, logger: Logger, startedAt: bigint): Promise<void> {
  const role = {
    worker: cluster.isWorker,
    first: !cluster.isWorker || cluster.worker?.id === 1,
    workerDatabaseUrl: cluster.isWorker ? process.env[WORKER_DATABASE_URL] : undefined,
  };
  const service = await openService(config, logger, role, PROCESS_OUTPUT, startedAt);
  const stopAndExit = (reason: string) => void service.stop(reason).then((code) => process.exit(code));
  process.on('SIGTERM', () => stopAndExit('SIGTERM'));
  process.on('SIGINT', () => stopAndExit('SIGINT'));
  if (cluster.isWorker) process.on('disconnect', () => stopAndExit('primary gone'));
  await service.listen();
}

async function main(): Promise<void> {
  const startedAt = process.hrtime.bigint();
  const checked = checkSettings(process.env, PROCESS_OUTPUT, { buffered: true, first: cluster.isPrimary });
  if (typeof checked === 'number') {
    // A refusal was said; the process ends with its code once the log line is out.
    process.exitCode = checked;
    return;
  }
  const { config, logger } = checked;
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
