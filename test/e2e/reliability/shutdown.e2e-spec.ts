import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { sharedDatabase, startIsolatedService } from '../../support/isolated';
import { createDatabase, dropDatabase } from '../../support/pg';
import { freePort, MAIN, RunningServer, ROOT, startServer } from '../../support/server';
import { productBody } from '../products/product-bodies';

/** A raw HTTP/1.1 connection, to hold a request half-sent across a SIGTERM. */
function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

function readResponse(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('close', () => resolve(text));
  });
}

const refused = async (baseUrl: string) => {
  try {
    await fetch(`${baseUrl}/health`);
    return false;
  } catch {
    return true;
  }
};

const children = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

describe('graceful shutdown on SIGTERM', () => {
  it('stops accepting, lets a request in flight finish, closes idle keep-alive connections and exits 0', async () => {
    const service = await startIsolatedService({ SHUTDOWN_TIMEOUT_MS: '20000' }, { process: true });
    try {
      const org = await service.createOrg();
      const port = service.server.port;
      // An idle keep-alive connection must not hold the process for its keep-alive timeout.
      const idle = await openSocket(port);
      const idleClosed = readResponse(idle);
      idle.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
      await new Promise((r) => setTimeout(r, 200));

      // A request whose body is still arriving when the signal comes.
      const body = JSON.stringify(productBody({ name: 'Half sent' }));
      const slow = await openSocket(port);
      const slowDone = readResponse(slow);
      slow.write(
        `POST /products HTTP/1.1\r\nHost: x\r\nAuthorization: ${org.testKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
      slow.write(body.slice(0, 10));
      await new Promise((r) => setTimeout(r, 200));

      const sentAt = Date.now();
      service.server.process!.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      // no new connections; the idle one was closed
      expect(await refused(service.server.baseUrl)).toBe(true);
      expect(await idleClosed).toMatch(/^HTTP\/1.1 200/);
      expect(service.server.process!.exitCode).toBeNull();

      slow.write(body.slice(10));
      const answer = await slowDone;
      expect(answer).toMatch(/^HTTP\/1.1 200/);
      expect(answer).toMatch(/connection: close/i);
      expect(answer).toMatch(/"id":"product_/);
      expect(await service.server.exited).toBe(0);
      expect(Date.now() - sentAt).toBeLessThan(10_000);
    } finally {
      await service.stop();
    }
  });

  it('cuts a request still running at SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
    const service = await startIsolatedService({ SHUTDOWN_TIMEOUT_MS: '700' }, { process: true });
    try {
      const org = await service.createOrg();
      const stuck = await openSocket(service.server.port);
      const stuckDone = readResponse(stuck);
      stuck.write(
        `POST /products HTTP/1.1\r\nHost: x\r\nAuthorization: ${org.testKey}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":`,
      );
      await new Promise((r) => setTimeout(r, 200));
      const sentAt = Date.now();
      service.server.process!.kill('SIGTERM');
      expect(await service.server.exited).toBe(0);
      const took = Date.now() - sentAt;
      expect(took).toBeGreaterThanOrEqual(600);
      expect(took).toBeLessThan(8000);
      expect(await stuckDone).toBe('');
      expect(service.server.output()).toContain('were cut');
    } finally {
      await service.stop();
    }
  });
});

describe('a SIGTERM while the background work is still starting', () => {
  it('lets the durable handlers finish the statement under way before the database closes, and exits 0', async () => {
    const db = await sharedDatabase();
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    let server: RunningServer | null = null;
    try {
      // The handlers' start updates event_handler_cursors (its realign); this lock holds that statement, as a
      // loaded machine would when a process (a cluster worker that has just begun listening) is stopped at once.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE event_handler_cursors IN SHARE MODE');
      server = await startServer({ databaseUrl: db.url, env: { LOG_LEVEL: 'info' }, process: true });
      let held = false;
      for (let i = 0; i < 200 && !held; i++) {
        const { rows } = await locker.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid)) AND query ILIKE '%event_handler_cursors%'`,
        );
        held = rows[0].n > 0;
        if (!held) await new Promise((r) => setTimeout(r, 100));
      }
      expect(held).toBe(true);

      server.process!.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 1000));
      // The stop waits for that statement instead of closing the connections under it (the start's next
      // statement then met a closed pool, and that unawaited rejection ended the process with exit code 1).
      expect(server.process!.exitCode).toBeNull();
      expect(server.output()).toContain('requests in flight finished');
      const releasedAt = Date.now();
      await locker.query('COMMIT');
      expect(await server.exited).toBe(0);
      expect(Date.now() - releasedAt).toBeLessThan(10_000);
      expect(server.output()).toMatch(/"code":0,"msg":"stopped"/);
      expect(server.output()).not.toContain('durable event handlers');
    } finally {
      await locker.end().catch(() => undefined);
      await server?.stop('SIGKILL');
      await db.drop();
    }
  });
});

describe('WEB_CONCURRENCY: worker processes', () => {
  it('with DATABASE_URL runs N workers that share the port and the database, and stops them all on SIGTERM', async () => {
    const service = await startIsolatedService({ WEB_CONCURRENCY: '3' }, { process: true });
    try {
      const primary = service.server.process!.pid!;
      let workers: number[] = [];
      for (let i = 0; i < 100 && workers.length < 3; i++) {
        workers = children(primary);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(workers).toHaveLength(3);
      // workers run with the smaller young generation, the slower-growing old space (less memory under
      // load) and no allocation-site pretenuring (fewer full collections after slow requests)
      for (const pid of workers) {
        const flags = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(flags).toContain('--max-semi-space-size=8');
        expect(flags).toContain('--heap-growing-percent=100');
        expect(flags).toContain('--no-allocation-site-pretenuring');
      }
      const org = await service.createOrg();
      // every request lands on some worker; all of them see the same data
      const made = await Promise.all(Array.from({ length: 12 }, (_, i) => org.test.post('/products', productBody({ name: `P${i}` }))));
      for (const res of made) expectSuccess(res);
      expect(expectSuccess(await org.test.get('/products'))).toHaveLength(12);

      // a worker that dies is replaced
      process.kill(workers[0], 'SIGKILL');
      let replaced: number[] = [];
      for (let i = 0; i < 200; i++) {
        replaced = children(primary);
        if (replaced.length === 3 && !replaced.includes(workers[0])) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(replaced).toHaveLength(3);
      expect(replaced).not.toContain(workers[0]);

      expect(await service.server.stop('SIGTERM')).toBe(0);
      for (const pid of replaced) expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      await service.stop();
    }
  });

  it('stops with exit code 1 when its workers cannot start (port taken) instead of replacing them forever', async () => {
    const port = await freePort();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    const pgServer = process.env.TEST_PG_SERVER_URL;
    const databaseUrl = pgServer ? await createDatabase(pgServer) : null;
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-cluster-port-'));
    try {
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        WEB_CONCURRENCY: '2',
      };
      if (databaseUrl) env.DATABASE_URL = databaseUrl;
      else {
        delete env.DATABASE_URL;
        env.DATA_DIR = dataDir;
      }
      const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      // Three worker starts that each load the service: on a loaded two-core machine that can take more than 30 s.
      const timer = setTimeout(() => child.kill('SIGKILL'), 75_000);
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      clearTimeout(timer);
      expect(code).toBe(1);
      expect(output).toContain('workers keep failing to start');
      expect(output).toContain('EADDRINUSE');
    } finally {
      await new Promise((r) => squatter.close(r));
      if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 100_000);

  it('with the embedded database the primary serves it to the workers: demo organization once, clean stop', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipa-cluster-embedded-'));
    try {
      const server = await startServer({ dataDir, env: { WEB_CONCURRENCY: '2', DEMO_ORGANIZATION: 'true' } });
      try {
        const keys = server.output().match(/Test key \(shown once\): (sk_test_\w+)/g) ?? [];
        expect(keys).toHaveLength(1);
        const demo = new Api(/sk_test_\w+/.exec(keys[0] ?? '')![0], server.baseUrl);
        const answers = await Promise.all(Array.from({ length: 10 }, () => demo.get('/auth/debug_token')));
        for (const res of answers) expect(expectSuccess(res).organization_name).toBe('Demo organization');
        expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(true);
      } finally {
        expect(await server.stop('SIGTERM')).toBe(0);
      }
      expect(existsSync(join(dataDir, 'embedded-db.json'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
