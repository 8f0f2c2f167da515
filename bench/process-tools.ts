/**
 * Small helpers the bench's scripts share: their `--name value` options, a free local port, a process's
 * CPU time from /proc, a short-lived database connection, and the built service started on a database
 * of their own.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

/** The repository (the scripts run from dist/bench/). */
export const ROOT = join(__dirname, '..', '..');
/** The built service. */
export const MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** The value after `--name` on the command line, or `fallback`. */
export function benchOption(name: string, fallback: string): string {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
}

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Clock ticks per second in /proc/<pid>/stat (getconf CLK_TCK on Linux). */
const TICKS = 100;

/** utime + stime of a process in milliseconds; 0 when it is gone. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time (user + system, ms) of the process's main thread alone: the event loop, without V8's compiler and collector threads. */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/** Runs `fn` on a connection of its own, closed afterwards. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** `serverUrl` with its database replaced by `database`. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Starts the built service on `databaseUrl` (a free loopback port, `LOG_LEVEL=warn`, rate limits and rate
 * sources off, the admin token given) with `env` on top, and resolves once `/health` answers 200 (fails
 * if it exits or is not up within two minutes).
 */
export async function startService(databaseUrl: string, adminToken: string, env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...(process.env as Record<string, string>),
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_ENABLED: 'false',
      RATE_SOURCES: 'none',
      ADMIN_API_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) return { child, base };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('service did not start');
}

/** A JSON request to the service with `key` (Bearer) or, without one, the admin token; the envelope's data, or a throw naming the status. */
export async function serviceCall(base: string, adminToken: string, key: string | null, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  else headers['x-admin-token'] = adminToken;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}
