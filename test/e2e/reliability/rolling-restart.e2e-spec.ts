import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../../support/api';
import { createDatabase, dropDatabase } from '../../support/pg';
import { ADMIN_TOKEN, freePort, RunningServer, startServer } from '../../support/server';
import { productBody } from '../products/product-bodies';
import { embeddedUrl } from '../../support/embedded';

/**
 * A small load balancer: round-robin over the instances, one connection per request, and a request
 * refused by one instance (it is restarting) is tried on the next, as a load balancer does. A
 * connection reset before any answer (the instance closed its listening socket with the connection
 * still in the kernel's queue) is retried only for requests that are safe to repeat.
 */
class RoundRobinProxy {
  private next = 0;
  private server!: Server;
  retriedRefusals = 0;
  retriedResets = 0;
  port = 0;

  constructor(private readonly backends: number[]) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const first = this.next++ % this.backends.length;
    for (let attempt = 0; attempt < 40; attempt++) {
      const port = this.backends[(first + attempt) % this.backends.length];
      const outcome = await new Promise<'done' | 'refused'>((resolve) => {
        const upstream = request(
          { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, connection: 'close' }, agent: false },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on('end', () => resolve('done'));
          },
        );
        upstream.on('error', (e: NodeJS.ErrnoException) => {
          if (e.code === 'ECONNREFUSED') return resolve('refused');
          // A connection reset before any answer is retried only when repeating the request is safe:
          // a GET, or a request carrying an Idempotency-Key.
          if (e.code === 'ECONNRESET' && !res.headersSent && (req.method === 'GET' || req.headers['idempotency-key'])) {
            this.retriedResets++;
            return resolve('refused');
          }
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`proxy: ${e.code ?? e.message}`);
          resolve('done');
        });
        upstream.end(body);
      });
      if (outcome === 'done') return;
      this.retriedRefusals++;
      if (attempt % this.backends.length === this.backends.length - 1) await new Promise((r) => setTimeout(r, 50));
    }
    res.writeHead(502).end('proxy: every instance refused');
  }
}

describe('rolling restart under load', () => {
  const created: { pg?: string; databaseUrl?: string; owner?: RunningServer; dataDir?: string } = {};

  afterAll(async () => {
    await created.owner?.stop();
    if (created.pg && created.databaseUrl) await dropDatabase(created.pg, created.databaseUrl);
    if (created.dataDir) rmSync(created.dataDir, { recursive: true, force: true });
  });

  it('restarts two instances one at a time behind a proxy with zero failed requests', async () => {
    // Two instances on one database: PostgreSQL when there is a server, else an embedded database
    // served by a third process that is not restarted.
    const pg = process.env.TEST_PG_SERVER_URL;
    let databaseUrl: string;
    if (pg) {
      created.pg = pg;
      databaseUrl = created.databaseUrl = await createDatabase(pg);
    } else {
      created.dataDir = mkdtempSync(join(tmpdir(), 'ipa-rolling-'));
      created.owner = await startServer({ dataDir: created.dataDir });
      databaseUrl = embeddedUrl(created.dataDir);
    }
    const env = { SHUTDOWN_TIMEOUT_MS: '15000' };
    const ports = [await freePort(), await freePort()];
    const instances: RunningServer[] = [];
    for (const port of ports) instances.push(await startServer({ databaseUrl, port, env }));
    const proxy = new RoundRobinProxy(ports);
    await proxy.start();
    const base = `http://127.0.0.1:${proxy.port}`;
    try {
      const made = await new Api(null, base).post('/admin/organizations', { name: 'Rolling' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      const api = new Api(made.body.data.test_key, base);

      let running = true;
      let tried = 0;
      const failures: string[] = [];
      const calls = [
        () => api.get('/auth/debug_token'),
        () =>
          api.post(
            '/invoices/create',
            { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '12.50' }] },
            { headers: { 'idempotency-key': randomUUID() } },
          ),
        () => api.post('/invoices/list', { limit: 5 }, { headers: { 'idempotency-key': randomUUID() } }),
        () => api.post('/products', productBody(), { headers: { 'idempotency-key': randomUUID() } }),
        () => api.get('/products?limit=5'),
      ];
      const client = async (n: number) => {
        for (let i = n; running; i++) {
          tried++;
          try {
            const res = await calls[i % calls.length]();
            if (res.status >= 300) failures.push(`${res.status} ${res.text.slice(0, 200)}`);
          } catch (e) {
            failures.push(`no answer: ${(e as Error).message}`);
          }
        }
      };
      const clients = Array.from({ length: 8 }, (_, n) => client(n));

      await new Promise((r) => setTimeout(r, 1000));
      const exitCodes: (number | null)[] = [];
      for (let i = 0; i < instances.length; i++) {
        const before = tried;
        exitCodes.push(await instances[i].stop('SIGTERM'));
        instances[i] = await startServer({ databaseUrl, port: ports[i], env });
        // the restarted instance takes its share again before the next one goes down
        while (tried - before < 50) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 500));
      }
      running = false;
      await Promise.all(clients);

      process.stdout.write(
        `rolling restart: ${tried} requests, ${failures.length} failed, ${proxy.retriedRefusals} refusals retried on the other instance (${proxy.retriedResets} of them resets of keyed requests)\n`,
      );
      expect(failures).toEqual([]);
      expect(exitCodes).toEqual([0, 0]);
      expect(tried).toBeGreaterThan(100);
      expect(proxy.retriedRefusals).toBeGreaterThan(0);
    } finally {
      await proxy.stop();
      for (const s of instances) await s.stop();
    }
  }, 240_000);
});
