import { Logger as NestLogger, type INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { NextFunction, Response } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createHttpApp, resolveDatabase, ResolvedDatabase, runMigrations } from './bootstrap';
import { preflightAfterListen } from './cli/doctor';
import { mountDocs } from './docs';
import { checkModuleSettings } from './module-registry';
import { IssueMemberLinkCommand } from './modules/console';
import { CountOrganizationsQuery, CreateOrganizationCommand } from './modules/organizations';
import { checkLiveRails, SealWalletKeysCommand } from './modules/rails';
import { loadRatesConfig } from './modules/rates';
import { loadWebhooksConfig, SealStoredSecretsCommand } from './modules/webhooks';
import { AppConfig, loadConfig } from './shared/config/app-config';
import { SecretBox } from './shared/crypto/secret-box';
import { withEmbeddedPassword } from './shared/db/embedded-postgres';
import { TransactionRunner } from './shared/db/transaction-runner';
import type { AppRequest } from './shared/http/envelope';
import { answerError } from './shared/http/exception.filter';
import { HttpDrain } from './shared/http/graceful-shutdown';
import { plainHttpRefusal } from './shared/http/middleware';
import { sealStoredAnswers } from './shared/idempotency/idempotency';
import { BackgroundWork } from './shared/lifecycle/background-work';
import { createRootLogger } from './shared/logging/logger';

/**
 * The service as functions, apart from the process that runs it: main.ts reads the process's settings, wires
 * its signals to `stop`, exits with the code `stop` gives back, and runs a cluster when WEB_CONCURRENCY > 1.
 * Nothing here handles a signal or ends the process.
 */

/** Where the service's output goes: its log lines and the demo block (`out`), a refusal at start (`err`). */
export interface ServiceOutput {
  out(text: string): void;
  err(text: string): void;
}

/** Standard output and error, as the `main.js` process writes them. */
export const PROCESS_OUTPUT: ServiceOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export const redact = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

export interface CheckedSettings {
  config: AppConfig;
  logger: Logger;
}

/**
 * The settings of `env`, checked before the service says anything else: the kernel's, every module's (their
 * modules read them again when they start) and the live rails'. A refusal is said (at error level and on `err`)
 * and gives the exit code 1; a bad value throws the loader's error (startup-failure.ts words it).
 * `first`: the process that speaks for the service (a cluster's primary) warns what is relaxed outside production.
 * The logger writes to standard output, its lines batched per event-loop turn (`buffered`), or through `output`.
 */
export function checkSettings(env: NodeJS.ProcessEnv, output: ServiceOutput, options: { buffered: boolean; first: boolean }): CheckedSettings | number {
  const config = loadConfig(env);
  checkModuleSettings(env);
  const rails = checkLiveRails(env, config.isProduction);
  const logger = createRootLogger(config.LOG_LEVEL, options.buffered ? { buffered: true } : { write: (line) => output.out(line) });
  if (options.first) warnOutsideProduction(config, logger, env);
  if (rails && options.first) {
    if (rails.refuse) {
      // Said at error level and on stderr; the process then ends with code 1 once the log line is out.
      logger.error({ event: 'no_live_rails', fix: 'docs/going-live.md' }, rails.message);
      output.err(`${rails.message}\n`);
      return 1;
    }
    logger.warn({ event: 'no_live_rails', allow_no_live_rails: true }, rails.message);
  }
  return { config, logger };
}

/** Migrations (once, under an advisory lock) and, on a fresh embedded database, the demo organization. */
export async function prepareDatabase(
  app: INestApplicationContext,
  config: AppConfig,
  embedded: boolean,
  logger: Logger,
  output: ServiceOutput,
): Promise<void> {
  const applied = await runMigrations(app);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  await sealStoredSecrets(app, logger);
  if (embedded && config.demoOrganization && (await app.get(QueryBus).execute(new CountOrganizationsQuery())) === 0) {
    const demo = await app.get(CommandBus).execute(new CreateOrganizationCommand('Demo organization'));
    const owner = await app.get(CommandBus).execute(new IssueMemberLinkCommand(demo.organization_id, DEMO_OWNER_EMAIL, 'invite', 'owner'));
    output.out(demoBlock(demo.organization_id, demo.test_key, new URL(owner.url).pathname, config));
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

/** Stops the embedded database this process serves (if any) and logs the stop: the exit code, 1 if that failed. */
export async function stopDatabase(database: ResolvedDatabase, logger: Logger, code: number): Promise<number> {
  try {
    await database.embedded?.stop();
  } catch (e) {
    code = 1;
    logger.error({ err: e }, 'error while stopping the embedded database');
  }
  logger.info({ code }, 'stopped');
  return code;
}

/** Which process this is: the whole service, or one worker of a cluster (with the primary's embedded database, if any). */
export interface ServiceRole {
  worker: boolean;
  /** Logs what the preflight did not pass: the whole service, or a cluster's first worker. */
  first: boolean;
  /** A worker's database when the primary serves the embedded one: its address without the password. */
  workerDatabaseUrl?: string;
}

export interface OpenService {
  /** Listens on PORT, then starts the background work and the preflight: the port it listens on. */
  listen(): Promise<number>;
  /**
   * Stops accepting connections, lets requests in flight finish (at most SHUTDOWN_TIMEOUT_MS), closes idle
   * keep-alive connections, closes the application (the webhook dispatcher stops claiming and finishes its
   * attempts in flight, then the pool closes) and stops the embedded database it owns: the exit code (0, or 1
   * when a step failed). Asked again, it gives the first stop's code.
   */
  stop(reason: string): Promise<number>;
}

/**
 * One HTTP server: the whole service (WEB_CONCURRENCY=1) or one cluster worker, its database prepared (a
 * worker's was prepared by the primary), not yet listening: the caller wires its stop before it listens.
 */
export async function openService(config: AppConfig, logger: Logger, role: ServiceRole, output: ServiceOutput, startedAt: bigint): Promise<OpenService> {
  let database: ResolvedDatabase;
  // The primary's embedded database: its address comes without the password, which the worker reads from DATA_DIR.
  if (role.workerDatabaseUrl) database = { url: withEmbeddedPassword(config.DATA_DIR, role.workerDatabaseUrl), embedded: null, ownsEmbedded: false };
  else if (role.worker) database = { url: config.DATABASE_URL!, embedded: null, ownsEmbedded: false };
  else database = await resolveDatabase(config, false);
  if (database.embedded) logger.info({ url: redact(database.url), dir: config.DATA_DIR }, 'embedded PostgreSQL started (set DATABASE_URL for production)');

  const drain = new HttpDrain();
  const app = await createHttpApp(config, database.url, logger, undefined, drain);
  // Docs routes go in before init(): init() installs the catch-all 404 handler. DOCS_ENABLED=false
  // leaves them out, so /docs and /openapi.json answer 404 like any unknown path.
  if (config.DOCS_ENABLED) {
    // Express matches the docs routes before Nest's middleware runs: they refuse plain HTTP in production here.
    const errors = new NestLogger('Errors');
    app.use(['/docs', '/docs-yaml', '/openapi.json'], (req: AppRequest, res: Response, next: NextFunction) => {
      const refusal = plainHttpRefusal(config, req);
      if (refusal) answerError(refusal, req, res, config.defaultEnv, errors);
      else next();
    });
    mountDocs(app, { admin: !!config.ADMIN_API_TOKEN, clock: config.CLOCK_CONTROL });
  }
  await app.init();
  // A worker's database was prepared by the primary before it was started.
  if (!role.worker) await prepareDatabase(app, config, !!database.embedded, logger, output);

  let stopped: Promise<number> | undefined;
  const stop = (reason: string): Promise<number> =>
    (stopped ??= (async () => {
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
      return stopDatabase(database, logger, code);
    })());

  const listen = async (): Promise<number> => {
    const server: Server = app.getHttpServer();
    server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
    // Node expects the headers timeout above the keep-alive one, or a reused connection's next request can be cut.
    server.headersTimeout = Math.max(server.headersTimeout, config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000);
    await app.listen(config.PORT, config.listenHost);
    // A stop that came while the process was still reaching its port (a cluster worker starting on a
    // loaded machine) is closing the application: no background work starts on it.
    if (stopped) return config.PORT;
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
    void preflightAfterListen(app, logger, role.first);
    return port;
  };
  return { listen, stop };
}

/**
 * Outside production, one warning line (once per start, from the first process) says what is
 * relaxed, so nobody runs that mode in front of real traffic without knowing it.
 */
function warnOutsideProduction(config: AppConfig, logger: Logger, env: NodeJS.ProcessEnv): void {
  // Without live rate sources, live invoices are priced from the rates table, which only
  // `rates:import` moves: said in production too, where nothing else is relaxed.
  const staticPrices = loadRatesConfig(env).hasSources ? [] : ['live prices are static (RATE_SOURCES off: rates from the table, moved only by rates:import)'];
  const webhooks = loadWebhooksConfig(env).webhookAllowPrivate ? ['webhooks to private, loopback and plain-http addresses allowed'] : [];
  if (config.isProduction) {
    // Relaxed on purpose in production (WEBHOOK_ALLOW_PRIVATE=true lets any merchant's key make the service call internal addresses): said too.
    const said = [...webhooks, ...staticPrices];
    if (said.length) logger.warn({ mode: config.NODE_ENV, relaxed: said }, `${said.join('; ')}.`);
    return;
  }
  const relaxed = [...config.relaxations, ...webhooks, ...staticPrices];
  if (!relaxed.length) return;
  const where = config.HOST ? `listening on ${config.HOST} (HOST)` : 'listening on 127.0.0.1 only (set HOST to listen elsewhere)';
  logger.warn(
    { mode: config.NODE_ENV, relaxed, host: config.listenHost },
    `${config.NODE_ENV} mode (NODE_ENV is not production): ${relaxed.join('; ')}; ${where}. Set NODE_ENV=production for real traffic.`,
  );
}
