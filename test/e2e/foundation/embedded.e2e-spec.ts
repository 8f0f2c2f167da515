import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { runCli, startServer } from '../../support/server';

/** TCP ports a process listens on (Linux: its socket inodes matched against /proc/net/tcp{,6}). */
function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter(Boolean),
  );
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[1] local address:port (hex), cols[3] state (0A = LISTEN), cols[9] inode
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9])) ports.push(parseInt(cols[1].split(':').pop()!, 16));
    }
  }
  return ports;
}

const DEMO_KEY = /Test key \(shown once\): (sk_test_[0-9A-Za-z]{40})/;

/** `npm start` without DATABASE_URL: embedded PostgreSQL persisted under DATA_DIR, shared with the CLI. */
describe('embedded default database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ipa-embedded-e2e-'));
  const embeddedEnv = { DEMO_ORGANIZATION: 'true' };
  const cliEnv = { DATABASE_URL: undefined, DATA_DIR: dataDir };

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints a demo key once, shares the folder with the CLI, persists across restarts and stops cleanly', async () => {
    // first start: an empty folder gets a demo organization whose test key is printed
    const first = await startServer({ dataDir, env: embeddedEnv, readyTimeoutMs: 150_000 });
    const demoKey = DEMO_KEY.exec(first.output())?.[1];
    expect(demoKey).toBeDefined();
    expect(expectSuccess(await new Api(demoKey!, first.baseUrl).get('/auth/debug_token'))).toMatchObject({
      organization_name: 'Demo organization',
      mode: 'test',
    });
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(true);

    // the database listens on a Unix socket in a directory only our user can enter, not on a TCP
    // port with a well-known password (PGlite's server accepts any password)
    const marker = JSON.parse(readFileSync(join(dataDir, 'embedded-db.json'), 'utf8')) as { url: string };
    const dbUrl = new URL(marker.url);
    expect(dbUrl.password).toBe('');
    const socketDir = dbUrl.searchParams.get('host')!;
    expect(socketDir).toBe(join(dataDir, 'socket'));
    expect(statSync(socketDir).mode & 0o077).toBe(0);
    expect(statSync(join(socketDir, '.s.PGSQL.5432')).isSocket()).toBe(true);
    expect(statSync(join(dataDir, 'embedded-db.json')).mode & 0o077).toBe(0);
    if (existsSync(`/proc/${first.process.pid}/fd`)) expect(listeningTcpPorts(first.process.pid!)).toEqual([first.port]);

    // the CLI works while the service runs (through the service's embedded server)
    const running = await runCli(['org:create', '--name', 'Made while running'], cliEnv);
    expect(running.code).toBe(0);
    const whileRunning = JSON.parse(running.stdout);
    expect(expectSuccess(await new Api(whileRunning.test_key, first.baseUrl).get('/auth/debug_token')).organization_name).toBe('Made while running');

    // SIGTERM: graceful exit 0, and the address file is gone
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(false);

    // the CLI works while the service is stopped (it opens the folder itself)
    const stopped = await runCli(['org:create', '--name', 'Made while stopped'], cliEnv);
    expect(stopped.code).toBe(0);
    const whileStopped = JSON.parse(stopped.stdout);
    const extra = await runCli(['key:create', '--org', whileRunning.organization_id, '--mode', 'live', '--read-only'], cliEnv);
    expect(extra.code).toBe(0);
    const extraKey = JSON.parse(extra.stdout).key as string;
    const revoked = await runCli(['key:revoke', '--key', whileRunning.live_key], cliEnv);
    expect(revoked.code).toBe(0);
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(false);

    // second start: everything persisted, and no new demo organization
    const second = await startServer({ dataDir, env: embeddedEnv, readyTimeoutMs: 150_000 });
    try {
      expect(second.output()).not.toMatch(DEMO_KEY);
      const at = (key: string) => new Api(key, second.baseUrl).get('/auth/debug_token');
      expectSuccess(await at(demoKey!));
      expect(expectSuccess(await at(whileRunning.test_key)).organization_id).toBe(whileRunning.organization_id);
      expect(expectSuccess(await at(whileStopped.live_key))).toMatchObject({ organization_name: 'Made while stopped', mode: 'live' });
      expect(expectSuccess(await at(extraKey))).toMatchObject({ read_only: true, mode: 'live' });
      expectError(await at(whileRunning.live_key), 401, { code: 'invalid_api_key' });
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  }, 420_000);
});
