import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createDatabase, dropDatabase, withClient } from '../../support/pg';
import { TcpRelay } from '../../support/relay';
import { ADMIN_TOKEN, CLI, RunningServer, startServer } from '../../support/server';

const exec = promisify(execFile);

/** How long a revoked key may still be accepted when no notification arrives (the revision check runs every 2 s). */
const BOUND_MS = 8_000;

/**
 * A relay between the service and PostgreSQL that can make the service's LISTEN connection deaf:
 * PostgreSQL's messages to it are dropped while the socket stays open, as with a half-open
 * connection or a pooler in transaction mode that keeps no LISTEN. The listener cannot tell.
 */
function deafeningRelay(databaseUrl: string): TcpRelay & { deaf: boolean } {
  const listeners = new Map<number, boolean>();
  const relay = TcpRelay.forDatabase(databaseUrl, {
    fromClient(connection, chunk) {
      // The startup message names the connection's application_name.
      if (!listeners.has(connection.id)) listeners.set(connection.id, chunk.includes('invoicing-api-listener'));
      connection.toServer(chunk);
    },
    fromServer(connection, chunk) {
      if (!(listeners.get(connection.id) && state.deaf)) connection.toClient(chunk);
    },
  });
  const state = Object.assign(relay, { deaf: false });
  return state;
}

/** Polls until the key is refused; the time it took. Fails after `withinMs`. */
async function refusedWithin(base: string, key: string, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await new Api(key, base).get('/auth/debug_token');
    if (res.status === 401) {
      expectError(res, 401, { code: 'invalid_api_key' });
      return Date.now() - started;
    }
    expectSuccess(res);
    if (Date.now() - started > withinMs) throw new Error(`the revoked key was still accepted after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitForOutput(server: RunningServer, pattern: RegExp, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!pattern.test(server.output())) {
    if (Date.now() > deadline) throw new Error(`no log line matching ${pattern}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until `text` occurs in the server's output more than `before` times: log lines go out in batches, after the request that caused them. */
async function waitForMore(server: RunningServer, text: string, before: number, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (occurrences(server, text) <= before) {
    if (Date.now() > deadline) throw new Error(`"${text}" was not logged again within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const occurrences = (server: RunningServer, text: string): number => server.output().split(text).length - 1;

const pgServer = process.env.TEST_PG_SERVER_URL;

describe('revoked keys when the notification listener is cut', () => {
  if (!pgServer) {
    // On the embedded database (no relay to cut in front of it): the revoke's notification reaches the key cache.
    let service: IsolatedService;
    beforeAll(async () => {
      service = await startIsolatedService();
    });
    afterAll(async () => service?.stop());
    it('refuses a key revoked through the CLI at once (its notification empties the key cache)', async () => {
      const org = await service.createOrg();
      for (let i = 0; i < 3; i++) expectSuccess(await org.test.get('/auth/debug_token'));
      await exec(process.execPath, [CLI, 'key:revoke', '--key', org.testKey], { env: service.cliEnv });
      expectError(await org.test.get('/auth/debug_token'), 401, { code: 'invalid_api_key' });
    });
    return;
  }

  let databaseUrl: string;
  let relay: ReturnType<typeof deafeningRelay>;
  let server: RunningServer;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    databaseUrl = await createDatabase(pgServer);
    relay = deafeningRelay(databaseUrl);
    await relay.start();
    server = await startServer({ databaseUrl: relay.relayed(databaseUrl) });
    cliEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' };
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await relay?.stop();
    if (databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  async function newOrg() {
    const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Revocation window' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const { test_key, live_key } = expectSuccess(res, 201);
    return { testKey: test_key as string, liveKey: live_key as string };
  }

  /** Waits until the service listens again on a connection opened after `since` (it reconnects on its next request). */
  async function listeningSince(since: Date, key: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await withClient(databaseUrl, (c) =>
        c.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'invoicing-api-listener' AND datname = current_database()
            AND backend_start > $1 AND query LIKE 'LISTEN%'`,
          [since],
        ),
      );
      if (rows.rowCount) return;
      if (Date.now() > deadline) throw new Error(`the service did not listen again:\n${server.output().slice(-3000)}`);
      // a request with a valid key makes the service reconnect its listener (to cache the key)
      expectSuccess(await new Api(key, server.baseUrl).get('/auth/debug_token'));
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Uses the key enough times for the service to cache it (the first revision check empties the cache once). */
  async function useUntilCached(key: string): Promise<void> {
    for (let i = 0; i < 6; i++) expectSuccess(await new Api(key, server.baseUrl).get('/auth/debug_token'));
  }

  it('refuses a key revoked without a notification within seconds, and warns that the listener missed it', async () => {
    const org = await newOrg();
    await listeningSince(new Date(0), org.liveKey);
    await useUntilCached(org.liveKey);
    // A writer that sends no notification (an operator's own SQL; the revision trigger still moves).
    await withClient(databaseUrl, (c) => c.query(`UPDATE api_keys SET revoked_at = now() WHERE prefix = $1`, [org.liveKey.slice(0, 14)]));
    const took = await refusedWithin(server.baseUrl, org.liveKey, BOUND_MS);
    process.stdout.write(`key revoked without a notification refused after ${took} ms\n`);
    await waitForOutput(server, /missed it/);
  });

  it('refuses a key revoked through the CLI within seconds while the listener is deaf (half-open socket)', async () => {
    const org = await newOrg();
    // The listener that missed the last change is replaced on the next request; the cache works again once it listens.
    await listeningSince(new Date(), org.testKey);
    await useUntilCached(org.testKey);

    const missedBefore = occurrences(server, 'missed it');
    relay.deaf = true;
    try {
      await exec(process.execPath, [CLI, 'key:revoke', '--key', org.testKey], { env: cliEnv });
      const took = await refusedWithin(server.baseUrl, org.testKey, BOUND_MS);
      process.stdout.write(`key revoked through the CLI refused after ${took} ms with a deaf listener\n`);
      // the service found out by the revision check, and said so
      await waitForMore(server, 'missed it', missedBefore);
    } finally {
      relay.deaf = false;
    }
  });

  it('warns when the listener connection is terminated, and refuses a key revoked meanwhile', async () => {
    const org = await newOrg();
    await listeningSince(new Date(), org.testKey);
    const warningsBefore = server.output().split('notification listener down').length;
    for (let i = 0; i < 3; i++) expectSuccess(await new Api(org.testKey, server.baseUrl).get('/auth/debug_token'));
    const terminated = await withClient(databaseUrl, (c) =>
      c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'invoicing-api-listener' AND datname = current_database()`),
    );
    expect(terminated.rowCount).toBeGreaterThanOrEqual(1);
    await exec(process.execPath, [CLI, 'key:revoke', '--key', org.testKey], { env: cliEnv });
    await refusedWithin(server.baseUrl, org.testKey, BOUND_MS);
    const deadline = Date.now() + 15_000;
    while (server.output().split('notification listener down').length <= warningsBefore) {
      if (Date.now() > deadline) throw new Error('no warning that the listener is down');
      await new Promise((r) => setTimeout(r, 100));
    }
    // the other key of the organization still works
    expectSuccess(await new Api(org.liveKey, server.baseUrl).get('/auth/debug_token'));
  });
});
