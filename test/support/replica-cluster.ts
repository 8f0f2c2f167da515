import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './server';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
const OS_USER = 'postgres';

/** Runs a PostgreSQL program as the `postgres` OS user (initdb and the server refuse root). */
async function asPostgres(dir: string, program: string, args: string[]): Promise<string> {
  const { stdout } = await run('runuser', ['-u', OS_USER, '--', join(BIN, program), ...args], { cwd: dir, timeout: 120_000 });
  return stdout;
}

async function numeric(text: string): Promise<string> {
  const out = await run('id', ['-u', text]);
  return out.stdout.trim();
}

/** Sends one statement on a connection of its own. */
export async function sql<T = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A primary and one streaming replica of the test's own on this machine: two clusters made with
 * initdb and pg_basebackup -R under a temporary folder owned by `postgres`, on free TCP ports of
 * 127.0.0.1, trusted (nothing else can reach them). `stop()` stops both and deletes the folder.
 */
export class ReplicaCluster {
  private constructor(
    readonly dir: string,
    readonly primaryPort: number,
    /** One port per replica; the first is `replicaUrl`'s. */
    readonly replicaPorts: number[],
    readonly database: string,
  ) {}

  get replicaPort(): number {
    return this.replicaPorts[0];
  }

  /** A primary and `replicas` streaming replicas of it (each its own pg_basebackup). */
  static async start(database = 'replicas_app', replicas = 1): Promise<ReplicaCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'ipa-replicas-'));
    chownSync(dir, Number(await numeric(OS_USER)), Number((await run('id', ['-g', OS_USER])).stdout.trim()));
    const ports: number[] = [];
    for (let i = 0; i < replicas; i++) ports.push(await freePort());
    const cluster = new ReplicaCluster(dir, await freePort(), ports, database);
    const primary = join(dir, 'primary');
    await asPostgres(dir, 'initdb', ['-D', primary, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    const common = [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'shared_buffers = 16MB',
      'fsync = off',
      'max_connections = 60',
      // Reads on the replica are not cancelled by replay while a test holds them.
      'max_standby_streaming_delay = -1',
    ];
    appendFileSync(primary + '/postgresql.conf', [...common, `port = ${cluster.primaryPort}`, 'wal_level = replica', 'max_wal_senders = 4', ''].join('\n'));
    await cluster.ctl(primary, 'start');
    await sql(cluster.serverUrl(cluster.primaryPort), `CREATE DATABASE ${database}`);
    for (let n = 0; n < replicas; n++) {
      const replica = join(dir, replicaDir(n));
      await asPostgres(dir, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(cluster.primaryPort),
        '-U',
        'postgres',
        '-D',
        replica,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
      ]);
      appendFileSync(replica + '/postgresql.conf', `\nport = ${ports[n]}\n`);
      await cluster.startReplica(n);
    }
    return cluster;
  }

  private async ctl(dataDir: string, action: 'start' | 'stop', extra: string[] = []): Promise<void> {
    await asPostgres(this.dir, 'pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '60', action, ...extra]);
  }

  private serverUrl(port: number, database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${port}/${database}`;
  }

  /** The service's database on the primary. */
  get primaryUrl(): string {
    return this.serverUrl(this.primaryPort, this.database);
  }

  /** The same database on the (first) replica (read only). */
  get replicaUrl(): string {
    return this.replicaUrlOf(0);
  }

  /** The same database on replica `n` (from 0). */
  replicaUrlOf(n: number): string {
    return this.serverUrl(this.replicaPorts[n], this.database);
  }

  async startReplica(n = 0): Promise<void> {
    await this.ctl(join(this.dir, replicaDir(n)), 'start');
  }

  /** Stops replica `n` at once (as a crash would). */
  async stopReplica(n = 0): Promise<void> {
    await this.ctl(join(this.dir, replicaDir(n)), 'stop', ['-m', 'immediate']);
  }

  /**
   * Replica `n` stops answering without closing a connection, as a host that vanished or a network cut
   * would look: its postmaster and every process of it are suspended (SIGSTOP) until `thawReplica`.
   */
  freezeReplica(n = 0): void {
    for (const pid of this.replicaProcesses(n)) process.kill(pid, 'SIGSTOP');
  }

  thawReplica(n = 0): void {
    for (const pid of this.replicaProcesses(n)) process.kill(pid, 'SIGCONT');
  }

  /** The postmaster of replica `n` (its postmaster.pid) and its children. */
  private replicaProcesses(n: number): number[] {
    const postmaster = Number(readFileSync(join(this.dir, replicaDir(n), 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          // The parent's pid is the second field after the name in parentheses.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  }

  /** The replica keeps receiving WAL but stops applying it (pg_wal_replay_pause), until resumed. */
  async pauseReplay(): Promise<void> {
    await sql(this.replicaUrl, 'SELECT pg_wal_replay_pause()');
  }

  async resumeReplay(): Promise<void> {
    await sql(this.replicaUrl, 'SELECT pg_wal_replay_resume()');
  }

  /** Waits until the replica has replayed everything the primary had written when called. */
  async caughtUp(timeoutMs = 30_000): Promise<void> {
    const [{ lsn }] = await sql<{ lsn: string }>(this.primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await sql<{ done: boolean }>(this.replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
      if (row.done) return;
      if (Date.now() > deadline) throw new Error('the replica did not catch up');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops both servers and deletes their folder. */
  async stop(): Promise<void> {
    for (const name of [...this.replicaPorts.map((_, n) => replicaDir(n)), 'primary']) {
      await this.ctl(join(this.dir, name), 'stop', ['-m', 'immediate']).catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The data folder of replica `n`: the first keeps the name it always had. */
function replicaDir(n: number): string {
  return n === 0 ? 'replica' : `replica-${n + 1}`;
}
