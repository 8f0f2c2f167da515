import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from './api';
import { embeddedUrl } from './embedded';
import { createDatabase, dropDatabase } from './pg';
import { ADMIN_TOKEN, RunningServer, ServerOptions, startServer } from './server';

export interface IsolatedService {
  server: RunningServer;
  /** Environment for the CLI to reach the same data. */
  cliEnv: NodeJS.ProcessEnv;
  /** Database address for direct assertions. */
  databaseUrl: string | null;
  createOrg(name?: string): Promise<{ id: string; test: Api; live: Api; testKey: string; liveKey: string }>;
  stop(): Promise<void>;
}

/**
 * A service of its own, on its own fresh database (or embedded folder when no PostgreSQL server
 * answers), for tests that change global state or need other settings.
 */
export async function startIsolatedService(
  env: Record<string, string | undefined> = {},
  options: Pick<ServerOptions, 'process'> = {},
): Promise<IsolatedService> {
  const pgServer = process.env.TEST_PG_SERVER_URL;
  let databaseUrl: string | null = null;
  let server: RunningServer;
  let cliEnv: NodeJS.ProcessEnv;
  if (pgServer) {
    databaseUrl = await createDatabase(pgServer);
    server = await startServer({ databaseUrl, env, ...options });
    cliEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' };
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-isolated-'));
    server = await startServer({ dataDir, env, ...options });
    cliEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' };
    delete cliEnv.DATABASE_URL;
  }
  return {
    server,
    cliEnv,
    databaseUrl,
    async createOrg(name = 'Isolated org') {
      const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      if (res.status !== 201) throw new Error(`could not create organization: ${res.text}`);
      const { organization_id, test_key, live_key } = res.body.data;
      return { id: organization_id, testKey: test_key, liveKey: live_key, test: new Api(test_key, server.baseUrl), live: new Api(live_key, server.baseUrl) };
    },
    async stop() {
      await server.stop();
      if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
    },
  };
}

/** One database several service processes share: PostgreSQL when there is a server, else an embedded one served by a process of its own. */
export async function sharedDatabase(): Promise<{ url: string; owner: RunningServer | null; drop(): Promise<void> }> {
  const pg = process.env.TEST_PG_SERVER_URL;
  if (pg) {
    const url = await createDatabase(pg);
    return { url, owner: null, drop: () => dropDatabase(pg, url) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'ipa-shared-'));
  const owner = await startServer({ dataDir });
  const url = embeddedUrl(dataDir);
  return {
    url,
    owner,
    drop: async () => {
      await owner.stop();
    },
  };
}
