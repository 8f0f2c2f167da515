/**
 * Small helpers the bench's scripts share: a free local port, a process's CPU time from /proc, and a
 * short-lived database connection.
 */
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { Client } from 'pg';

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
