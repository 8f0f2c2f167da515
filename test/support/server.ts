import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const MAIN = join(ROOT, 'dist', 'src', 'main.js');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * Preloaded into every service and CLI process the tests start: it keeps V8's compiled code for the files the
 * process loads, and where their requires led, so the next start neither compiles them nor looks them up again
 * (load-cache.cjs). The code that runs is the same; TEST_LOAD_CACHE=0 turns it off.
 */
const LOAD_CACHE = join(__dirname, 'load-cache.cjs');

/**
 * Starts the built service with `env` over a test-mode base (no database reachable: port 1) for a start
 * that is expected to stop on its own, e.g. on a bad setting; its exit code and output (SIGKILLed after 20 s).
 */
export function runUntilExit(env: Record<string, string>, main = MAIN, options: { until?: string } = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--require', LOAD_CACHE, main], {
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'postgres://127.0.0.1:1/none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // `until`: a line that says the process got as far as the test needs (it may then retry for long); it is stopped there.
  const heard = (d: Buffer) => {
    output += d;
    if (options.until && output.includes(options.until)) child.kill('SIGKILL');
  };
  child.stdout?.on('data', heard);
  child.stderr?.on('data', heard);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolveRun) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output });
    }),
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  /** The service's own process; absent when it runs in the worker's service host (ServerOptions.process asks for one). */
  process?: ChildProcess;
  output(): string;
  /** The exit code once the process has ended (null when a signal ended it). */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServerOptions {
  databaseUrl?: string;
  /** Data folder of the embedded database (when no databaseUrl). */
  dataDir?: string;
  /** Settings on top of the test defaults; undefined removes a variable (e.g. NODE_ENV, to start the way `npm start` does). */
  env?: Record<string, string | undefined>;
  port?: number;
  readyTimeoutMs?: number;
  /** Headers for the readiness probe (a production-mode service wants X-Forwarded-Proto: https). */
  readyHeaders?: Record<string, string>;
  /** The service's entry point: the built one unless a test runs a copy of the service (dist/src/main.js of another tree). */
  main?: string;
  /**
   * A process of its own, as `npm start` and production run it, rather than the worker's service host: for a test
   * of the process (its signals, its exit, what it writes on its streams). Without it, a start runs in the host
   * unless the service needs a process anyway (see inServiceHost).
   */
  process?: boolean;
}

/** Preloaded into every service a test starts: it reports the ports the service listens on (listen-report.cjs). */
const LISTEN_REPORT = join(__dirname, 'listen-report.cjs');

/** How many ports of its own choosing startServer tries when the one it chose was taken meanwhile. */
const PORT_ATTEMPTS = 3;

/**
 * Starts the built service as a real process and waits until it answers /health/ready with 200 on
 * its port, and has itself reported listening there.
 *
 * The second condition matters when the port is taken between freePort's choice and the child's
 * listen (another Jest worker's service chose the same one): the child then fails with EADDRINUSE
 * while the other service, on another database, answers the readiness probe, and a test would send
 * its requests to a stranger (a key it just made there is unknown: 401). Such a start is tried again
 * on a new port; with a port the caller chose, it fails.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const started = await startOnce(options, port);
    if (started !== PORT_TAKEN) return started;
    if (options.port !== undefined || attempt >= PORT_ATTEMPTS) throw new Error(`service could not listen on port ${port}: it is taken (EADDRINUSE)`);
  }
}

const PORT_TAKEN = Symbol('port taken');

async function startOnce(options: ServerOptions, port: number): Promise<RunningServer | typeof PORT_TAKEN> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ADMIN_API_TOKEN: ADMIN_TOKEN,
    DEMO_ORGANIZATION: 'false',
    // The test clock is on by default outside production; tests that move it ask for it (CLOCK_CONTROL=true).
    CLOCK_CONTROL: 'false',
    // Tests call from one address at full speed; rate limits get their own test with low budgets.
    RATE_LIMIT_TEST: '100000',
    RATE_LIMIT_LIVE: '100000',
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_AUTH_FAILURES: '100000',
    ADMIN_AUTH_FAILURES: '100000',
    // Production refuses to start with no live network in CHAINS_FILE; tests that start production
    // without chains say it is meant (test/e2e/foundation/live-rails-check checks the refusal itself).
    ALLOW_NO_LIVE_RAILS: 'true',
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  // Tests run a worker's pass when they need it (POST /test_helpers/workers/{name}/run, test/support/workers.ts)
  // instead of waiting for its tick; production refuses the setting, so a production start goes without it.
  if (!(options.env && 'WORKER_PASSES_ON_DEMAND' in options.env) && env.NODE_ENV !== 'production') env.WORKER_PASSES_ON_DEMAND = 'true';
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else {
    delete env.DATABASE_URL;
    env.DATA_DIR = options.dataDir ?? mkdtempSync(join(tmpdir(), 'ipa-data-'));
  }
  if (inServiceHost(options, env)) {
    for (let slot = 0; slot < SERVICE_HOST_SLOTS; slot++) {
      const hosted = await startInServiceHost(options, port, env, slot);
      if (hosted !== HOST_BUSY) return hosted;
    }
  }
  // A process of its own reports the ports it listens on (listen-report.cjs) in this file.
  const reportDir = mkdtempSync(join(tmpdir(), 'ipa-listen-'));
  const report = join(reportDir, 'ports');
  env.TEST_LISTEN_REPORT = report;
  const child = spawn(process.execPath, ['--require', LOAD_CACHE, '--require', LISTEN_REPORT, options.main ?? MAIN], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  void exited.then(() => rmSync(reportDir, { recursive: true, force: true }));
  const listening = () => existsSync(report) && readFileSync(report, 'utf8').split('\n').includes(String(port));

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let ready = false;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      // Only once the child listens there: until then whatever answers on the port is not this service.
      if (listening()) {
        const res = await fetch(`${baseUrl}/health/ready`, { headers: options.readyHeaders });
        if (res.status === 200) {
          ready = true;
          break;
        }
      }
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!ready) {
    child.kill('SIGKILL');
    await exited;
    if (!listening() && output.includes('EADDRINUSE')) return PORT_TAKEN;
    throw new Error(`service did not become ready on ${baseUrl}:\n${output.slice(-4000)}`);
  }
  return {
    baseUrl,
    port,
    process: child,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Whether a start runs in the worker's service host (service-host.cjs) rather than a process of its own: not when
 * the test asks for a process, runs another build, uses the embedded database (the process opens and stops it), a
 * cluster (WEB_CONCURRENCY > 1), or the durable handlers' crash hook (which ends the process); not when
 * TEST_SERVICE_HOST=0.
 */
function inServiceHost(options: ServerOptions, env: Record<string, string>): boolean {
  if (options.process || options.main || !options.databaseUrl || process.env.TEST_SERVICE_HOST === '0') return false;
  if (env.WEB_CONCURRENCY && env.WEB_CONCURRENCY !== '1') return false;
  return !env.DURABLE_HANDLERS_CRASH_BEFORE;
}

const SERVICE_HOST = join(__dirname, 'service-host.cjs');
/**
 * Hosts per Jest worker: a test with two services side by side (two instances, a standby) gets the second host for
 * the second; a third at once gets a process. Each is found again by the worker's next test files (its pid and slot).
 */
const SERVICE_HOST_SLOTS = 2;
const serviceHostSocket = (slot: number) =>
  join(tmpdir(), `ipa-svc-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}-${process.pid}-${slot}.sock`);
const HOST_BUSY = Symbol('host busy');

interface HostMessage {
  pid?: number;
  busy?: boolean;
  out?: string;
  listening?: number;
  exit?: number;
}

async function startInServiceHost(
  options: ServerOptions,
  port: number,
  env: Record<string, string>,
  slot: number,
): Promise<RunningServer | typeof PORT_TAKEN | typeof HOST_BUSY> {
  const socket = await hostConnection(SERVICE_HOST, serviceHostSocket(slot));
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  let hostPid = 0;
  let listeningOn: number | undefined;
  let exitCode: number | null | undefined;
  let busy = false;
  let onMessage = () => undefined as void;
  const exited = new Promise<number | null>((resolveExit) => {
    let input = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      input += chunk;
      for (let end = input.indexOf('\n'); end >= 0; end = input.indexOf('\n')) {
        const message = JSON.parse(input.slice(0, end)) as HostMessage;
        input = input.slice(end + 1);
        if (message.busy) busy = true;
        if (message.pid) hostPid = message.pid;
        if (message.out !== undefined) output += message.out;
        if (message.listening !== undefined) listeningOn = message.listening;
        if (message.exit !== undefined) exitCode = message.exit;
        onMessage();
      }
    });
    socket.on('error', () => undefined);
    // No exit code: the host itself ended (killed, as a test kills a service with SIGKILL, or a command ended it).
    socket.on('close', () => {
      exitCode ??= null;
      onMessage();
      resolveExit(exitCode);
    });
  });
  socket.write(`${JSON.stringify({ env })}\n`);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let ready = false;
  while (Date.now() < deadline && exitCode === undefined && !busy) {
    try {
      if (listeningOn === port) {
        const res = await fetch(`${baseUrl}/health/ready`, { headers: options.readyHeaders });
        if (res.status === 200) {
          ready = true;
          break;
        }
      }
    } catch {
      // not answering yet
    }
    await new Promise<void>((r) => {
      const timer = setTimeout(r, 25);
      onMessage = () => {
        clearTimeout(timer);
        r();
      };
    });
  }
  if (busy) {
    await exited;
    return HOST_BUSY;
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (exitCode !== undefined) return exitCode;
    if (signal === 'SIGTERM' || signal === 'SIGINT') socket.write(`${JSON.stringify({ stop: signal })}\n`);
    // Any other signal ends the process the service runs in, as it would end a process of its own.
    else {
      process.kill(hostPid, signal);
      const code = await exited;
      // Its connection to us may close before its listening socket does (the kernel closes a dying process's
      // sockets one by one): a start right after would connect to the dying host and lose its service. Returned
      // once the process is gone, so the next start finds no host and starts one.
      await processGone(hostPid);
      return code;
    }
    return exited;
  };
  if (!ready) {
    await stop('SIGTERM');
    if (listeningOn === undefined && output.includes('EADDRINUSE')) return PORT_TAKEN;
    // A host that ended with no output of the service wrote its reason (if any) to its own log.
    const hostLog = exitCode === null ? `\nthe host's log (${serviceHostSocket(slot)}.log):\n${tailOf(`${serviceHostSocket(slot)}.log`)}` : '';
    throw new Error(`service did not become ready on ${baseUrl} (in the service host):\n${output.slice(-4000)}${hostLog}`);
  }
  return { baseUrl, port, output: () => output, exited, stop };
}

/** The last 4,000 characters of a file, or why it cannot be read. */
function tailOf(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-4000);
  } catch (e) {
    return `(${(e as Error).message})`;
  }
}

/** The service's output lines so far that contain `text`. */
export function linesWith(server: Pick<RunningServer, 'output'>, text: string): string[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes(text));
}

/** The first line of the service's output that contains every one of `texts`, waited for up to `timeoutMs`. */
export async function loggedLine(server: Pick<RunningServer, 'output'>, texts: string[], timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = server
      .output()
      .split('\n')
      .find((l) => texts.every((t) => l.includes(t)));
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no line of the service's output contains all of ${JSON.stringify(texts)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The service's error lines so far (a 500 is logged at level 50 with its support id): what explains a failed run. */
export function errorLines(server: Pick<RunningServer, 'output'>): string[] {
  return linesWith(server, '"level":50');
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /**
   * A process of its own (`node dist/src/cli/main.js ...`), as an operator runs it, instead of the worker's CLI host.
   * For a test of the process (what it loads, how it ends) or of a command that starts the embedded database itself.
   */
  process?: boolean;
}

/**
 * Runs a command of the built CLI with the given environment on top of ours: its exit code, standard output and
 * standard error. It goes through the Jest worker's CLI host (cli-host.cjs: the CLI's own runCli, one command at a
 * time, in a process that has loaded the CLI once) unless `options.process` asks for a process of its own, or
 * TEST_CLI_HOST=0 turns the host off for the whole run.
 */
export function runCli(args: string[], env: Record<string, string | undefined>, options: RunCliOptions = {}): Promise<CliResult> {
  const merged: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: 'warn' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  if (options.process || process.env.TEST_CLI_HOST === '0') return runCliProcess(args, merged);
  return runInCliHost(args, merged);
}

function runCliProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, ['--require', LOAD_CACHE, CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolveRun) => child.once('close', (code) => resolveRun({ code, stdout, stderr })));
}

const CLI_HOST = join(__dirname, 'cli-host.cjs');
/** One host per Jest worker (its pid) and checkout, found again by the worker's next test file. */
const CLI_HOST_SOCKET = join(tmpdir(), `ipa-cli-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}-${process.pid}.sock`);

async function runInCliHost(args: string[], env: Record<string, string>): Promise<CliResult> {
  const socket = await hostConnection(CLI_HOST, CLI_HOST_SOCKET);
  return new Promise((resolveAsk, reject) => {
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      if (!answer.endsWith('\n')) return reject(new Error(`the CLI host closed the connection without an answer (${CLI_HOST_SOCKET})`));
      resolveAsk(JSON.parse(answer) as CliResult);
    });
    socket.write(`${JSON.stringify({ args, env })}\n`);
  });
}

/** True once a host accepts connections on its socket (a connection that sends nothing is no request). */
function hostAnswers(socketPath: string): Promise<boolean> {
  return new Promise((answers) => {
    const probe = connect(socketPath);
    probe.on('connect', () => {
      probe.destroy();
      answers(true);
    });
    probe.on('error', () => answers(false));
  });
}

/** Hosts of this worker being started, by socket: two callers at once wait for the same start. */
const hostsStarting = new Map<string, Promise<void>>();

/** Opens a connection to the worker's host on `socketPath`, starting the host (`script`) when there is none (or it is gone). */
/** Until process `pid` no longer exists (at most 10 s). */
async function processGone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function hostConnection(script: string, socketPath: string): Promise<Socket> {
  const open = () =>
    new Promise<Socket>((resolveOpen, reject) => {
      const socket = connect(socketPath);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolveOpen(socket);
      });
      socket.once('error', reject);
    });
  try {
    return await open();
  } catch (e) {
    if (!['ENOENT', 'ECONNREFUSED'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
  }
  let starting = hostsStarting.get(socketPath);
  if (!starting) {
    starting = startHost(script, socketPath).finally(() => hostsStarting.delete(socketPath));
    hostsStarting.set(socketPath, starting);
  }
  await starting;
  return open();
}

/**
 * Starts a host (cli-host.cjs or service-host.cjs) for this worker and waits until it accepts connections. Its
 * standard error goes to SOCKET.log beside the socket (what a service writes there itself: a crash, a warning of
 * Node's), which outlives this test file as the host does; each host appends its part after a line naming its start.
 */
async function startHost(script: string, socketPath: string): Promise<void> {
  rmSync(socketPath, { force: true });
  const log = `${socketPath}.log`;
  // Appended, never truncated: a host that died leaves its last words for the one started after it.
  const errors = openSync(log, 'a');
  const from = fstatSync(errors).size;
  writeSync(errors, `--- host started ${new Date().toISOString()} by worker ${process.pid}\n`);
  const child = spawn(process.execPath, ['--require', LOAD_CACHE, script, socketPath, String(process.pid)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', errors],
  });
  closeSync(errors);
  const deadline = Date.now() + 60_000;
  while (!(await hostAnswers(socketPath))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not start (exit ${child.exitCode}): ${readFileSync(log).subarray(from).toString('utf8')}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  // It outlives this test file, for the worker's next ones: nothing here waits for it.
  child.unref();
}

/**
 * Removes what hosts of this checkout left in the temp folder once their worker is gone (a host killed with
 * SIGKILL cannot remove its socket and log itself): run by the global teardown.
 */
export function removeHostLeftovers(): void {
  const digest = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);
  const pattern = new RegExp(`^ipa-(cli|svc)-${digest}-(\\d+)(-\\d+)?\\.sock(\\.log)?$`);
  for (const name of readdirSync(tmpdir())) {
    const worker = pattern.exec(name)?.[2];
    if (!worker) continue;
    try {
      process.kill(Number(worker), 0);
    } catch {
      rmSync(join(tmpdir(), name), { force: true });
    }
  }
}

/** The CLI's database settings for the shared test service: its DATABASE_URL, or its embedded data folder. */
export function sharedCliEnv(): Record<string, string | undefined> {
  return process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : { DATABASE_URL: undefined, DATA_DIR: process.env.TEST_DATA_DIR };
}
