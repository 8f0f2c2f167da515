import 'reflect-metadata';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { createHttpApp, resolveDatabase, runMigrations } from './bootstrap';
import { mountDocs } from './docs';
import { CreateOrganizationCommand } from './modules/organizations/commands/create-organization/create-organization.command';
import { CountOrganizationsQuery } from './modules/organizations/queries/count-organizations/count-organizations.query';
import { WebhookDispatcher } from './modules/webhooks/dispatch/webhook-dispatcher';
import { ConfigError, loadConfig } from './shared/config/app-config';
import { createRootLogger } from './shared/logging/logger';
import { InvoiceClocks } from './modules/invoices/invoice-clocks.service';

async function main(): Promise<void> {
  const startedAt = process.hrtime.bigint();
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const logger = createRootLogger(config.LOG_LEVEL);
  const database = await resolveDatabase(config, false);
  if (database.embedded) logger.info({ url: database.url.replace(/:[^:@/]*@/, ':***@'), dir: config.DATA_DIR }, 'embedded PostgreSQL started (set DATABASE_URL for production)');

  const app = await createHttpApp(config, database.url, logger);
  // Docs routes go in before init(): init() installs the catch-all 404 handler.
  mountDocs(app);
  await app.init();
  const applied = await runMigrations(app);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  // Expiries and monitoring windows move on without requests (INVOICE_SWEEP_SECONDS).
  app.get(InvoiceClocks).start();

  if (database.embedded && config.DEMO_ORGANIZATION && (await app.get(QueryBus).execute(new CountOrganizationsQuery())) === 0) {
    const demo = await app.get(CommandBus).execute(new CreateOrganizationCommand('Demo organization'));
    process.stdout.write(`\nDemo organization created: ${demo.organization_id}\nTest key (shown once): ${demo.test_key}\n\n`);
  }

  // Our own signal handling (not Nest's shutdown hooks, which re-raise the signal): close the HTTP
  // server and the pool, stop the embedded database (removing its address file), exit 0.
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    let code = 0;
    try {
      await app.close();
    } catch (e) {
      code = 1;
      logger.error({ err: e }, 'error while closing the application');
    }
    try {
      await database.embedded?.stop();
    } catch (e) {
      code = 1;
      logger.error({ err: e }, 'error while stopping the embedded database');
    }
    process.exit(code);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen(config.PORT, config.HOST);
  // After the migrations: the dispatcher sends webhook deliveries recorded by any instance.
  app.get(WebhookDispatcher).start();
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, startup_ms: Number(process.hrtime.bigint() - startedAt) / 1e6 }, `listening on port ${port}`);
}

main().catch((e) => {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`Start-up failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
