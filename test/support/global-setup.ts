import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cachedTemplateDatabase,
  createDatabase,
  createTemplateDatabase,
  dropDatabase,
  dropTemplateDatabase,
  findPostgresServer,
  isCachedTemplate,
  TEMPLATE_ENV,
} from './pg';
import { RunningServer, startServer } from './server';

declare global {
  var __TEST_SERVER__: RunningServer | undefined;
}

/**
 * One fresh database and one service process for the whole run; each test makes its own
 * organizations, so test files share them safely and run in parallel.
 *
 * On a PostgreSQL server it first finds or makes one migrated template database (before any worker
 * starts, and closed to connections): every test database after it, the shared one included, is a copy
 * of it (test/support/pg.ts createDatabase), so the migrations run once per run instead of once per
 * service a test file starts. The template is kept for the next run while the migrations stay the same
 * (cachedTemplateDatabase), so most runs migrate nothing. The tests of the migrations themselves ask
 * for an empty database.
 */
export default async function globalSetup(): Promise<void> {
  const pgServer = await findPostgresServer();
  process.env.TEST_PG_SERVER_URL = pgServer ?? '';
  process.env[TEMPLATE_ENV] = '';
  if (pgServer) {
    process.env[TEMPLATE_ENV] = process.env.TEST_TEMPLATE_CACHE === '0' ? await createTemplateDatabase(pgServer) : await cachedTemplateDatabase(pgServer);
    const databaseUrl = await createDatabase(pgServer);
    process.env.TEST_DATABASE_URL = databaseUrl;
    try {
      // A process of its own: it serves the whole run, and this process's service host stays free for the files
      // Jest runs here itself (one file runs in this process, not in a worker).
      globalThis.__TEST_SERVER__ = await startServer({ databaseUrl, process: true });
    } catch (e) {
      // Jest runs no teardown after a failed setup: leave no databases behind.
      await dropDatabase(pgServer, databaseUrl);
      if (!isCachedTemplate(process.env[TEMPLATE_ENV])) await dropTemplateDatabase(pgServer, process.env[TEMPLATE_ENV]);
      throw e;
    }
  } else {
    process.env.TEST_DATABASE_URL = '';
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-embedded-test-'));
    process.env.TEST_DATA_DIR = dataDir;
    globalThis.__TEST_SERVER__ = await startServer({ dataDir });
  }
  process.env.TEST_BASE_URL = globalThis.__TEST_SERVER__.baseUrl;
}
