import { createServer, Server, Socket } from 'node:net';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase } from '../../support/pg';
import { ADMIN_TOKEN, freePort, RunningServer, startServer } from '../../support/server';
import { testDatabaseUrl } from '../../support/api';

/** A TCP relay in front of PostgreSQL that can drop every connection and refuse new ones. */
class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private open = true;
  private server!: Server;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((client) => {
      if (!this.open) {
        client.destroy();
        return;
      }
      const upstream = new Socket();
      upstream.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', () => r()));
  }

  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('database outage', () => {
  const pgServer = process.env.TEST_PG_SERVER_URL;
  let databaseUrl: string;
  let proxy: CuttableProxy;
  let server: RunningServer;

  beforeAll(async () => {
    // a database of its own on a server, or the shared embedded one (the schema is already there)
    databaseUrl = pgServer ? await createDatabase(pgServer) : testDatabaseUrl();
    const direct = new URL(databaseUrl);
    proxy = new CuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    const viaProxy = new URL(databaseUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    server = await startServer({ databaseUrl: viaProxy.toString(), env: { DB_POOL_SIZE: '2' } });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.stop();
    if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  it('answers 503 service_unavailable while the database is unreachable, and recovers', async () => {
    const api = new Api(null, server.baseUrl);
    const created = await api.post('/admin/organizations', { name: 'Outage Co' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
    const { test_key: key } = expectSuccess(created, 201);
    const merchant = new Api(key, server.baseUrl);
    expectSuccess(await merchant.get('/auth/debug_token'));

    proxy.cut();
    const ready = expectError(await api.get('/health/ready'), 503, { code: 'service_unavailable' });
    expect(ready.error).toMatch(/database/i);
    const call = expectError(await merchant.get('/auth/debug_token'), 503, { code: 'service_unavailable' });
    expect(JSON.stringify(call)).not.toMatch(/ECONN|Connection terminated|at .*\.js|typeorm|pg-pool/i);
    // logged with its support id (the log line may reach us a moment after the response)
    for (let i = 0; i < 40 && !server.output().includes(call.support_id); i++) await new Promise((r) => setTimeout(r, 50));
    expect(server.output()).toContain(call.support_id);

    proxy.restore();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await api.get('/health/ready')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(expectSuccess(await merchant.get('/auth/debug_token')).mode).toBe('test');
  });
});
