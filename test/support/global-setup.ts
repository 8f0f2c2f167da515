import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, findPostgresServer } from './pg';
import { RunningServer, startServer } from './server';

declare global {
  var __TEST_SERVER__: RunningServer | undefined;
}

/**
 * One fresh database and one service process for the whole run; each test makes its own
 * organizations, so test files share them safely and run in parallel.
 */
export default async function globalSetup(): Promise<void> {
  const pgServer = await findPostgresServer();
  process.env.TEST_PG_SERVER_URL = pgServer ?? '';
  if (pgServer) {
    const databaseUrl = await createDatabase(pgServer);
    process.env.TEST_DATABASE_URL = databaseUrl;
    globalThis.__TEST_SERVER__ = await startServer({ databaseUrl });
  } else {
    process.env.TEST_DATABASE_URL = '';
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-embedded-test-'));
    process.env.TEST_DATA_DIR = dataDir;
    globalThis.__TEST_SERVER__ = await startServer({ dataDir });
  }
  process.env.TEST_BASE_URL = globalThis.__TEST_SERVER__.baseUrl;
}
