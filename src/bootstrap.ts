import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { Metrics } from './modules/health';
import { AppConfig } from './shared/config/app-config';
import { migrate } from './shared/db/data-source';
import { EnvelopeExpressAdapter } from './shared/http/envelope-adapter';
import { HttpDrain } from './shared/http/graceful-shutdown';
import { requestLifecycle } from './shared/http/request-lifecycle';
import { applyCors, applySecurityHeaders } from './shared/http/security';
import { EmbeddedDatabase, findRunningEmbedded, startEmbeddedPostgres } from './shared/db/embedded-postgres';
import { PinoNestLogger } from './shared/logging/logger';
import { Clock } from './shared/time/clock';

export interface ResolvedDatabase {
  url: string;
  embedded: EmbeddedDatabase | null;
  /** True when this process serves the embedded database itself. */
  ownsEmbedded: boolean;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR: through the running
 * service's socket if one serves it (the CLI while the service runs), or opened by this process.
 */
export async function resolveDatabase(config: AppConfig, allowShared: boolean): Promise<ResolvedDatabase> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: null, ownsEmbedded: false };
  const running = allowShared ? findRunningEmbedded(config.DATA_DIR) : null;
  if (running) return { url: running, embedded: null, ownsEmbedded: false };
  const embedded = await startEmbeddedPostgres(config.DATA_DIR, config.dbPoolSize * config.WEB_CONCURRENCY + 4);
  return { url: embedded.url, embedded, ownsEmbedded: true };
}

/**
 * The HTTP application, with security headers, CORS (when configured) and, when a drain is given,
 * request counting for graceful shutdown. Routes added later (docs) still come before Nest's 404.
 */
export async function createHttpApp(config: AppConfig, databaseUrl: string, logger: Logger, clock?: Clock, drain?: HttpDrain): Promise<NestExpressApplication> {
  const httpsOptions =
    config.TLS_CERT_FILE && config.TLS_KEY_FILE ? { cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE) } : undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, databaseUrl, logger, clock }), new EnvelopeExpressAdapter(), {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    httpsOptions,
    // Let start-up errors (a module's invalid configuration) reach the caller instead of exiting here.
    abortOnError: false,
  });
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.set('etag', false);
  drain?.attach(app.getHttpServer());
  app.use(requestLifecycle({ logger, defaultEnv: config.defaultEnv, observer: app.get(Metrics), drain }));
  applySecurityHeaders(app, config);
  applyCors(app, config);
  return app;
}

export async function createCliContext(config: AppConfig, databaseUrl: string, logger: Logger): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl, logger }), { logger: false, abortOnError: false });
}

export async function runMigrations(app: INestApplication | INestApplicationContext): Promise<string[]> {
  return migrate(app.get(DataSource));
}
