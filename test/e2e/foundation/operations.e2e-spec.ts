import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { Agent, request } from 'node:http';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';

const viaProxy = { 'x-forwarded-proto': 'https' };
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 5).toString('base64') };
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** Whether a TCP connection to address:port is accepted. */
function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** GET `path` over `agent` (which keeps its connections): the status, the Keep-Alive header and the local port of the socket used. */
function getOver(agent: Agent, url: string): Promise<{ status: number; keepAlive: string | undefined; localPort: number | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: viaProxy }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive'] as string | undefined, localPort: req.socket?.localPort }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('keep-alive connections (HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
  it('keeps an idle connection open 65 s by default, longer than a load balancer reuses it, and says so', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const base = process.env.TEST_BASE_URL as string;
      const first = await getOver(agent, `${base}/health`);
      expect(first).toMatchObject({ status: 200, keepAlive: 'timeout=65' });
      // Node's own default closes after 5 s idle: a balancer reusing the connection then would get a reset.
      await new Promise((done) => setTimeout(done, 5_500));
      const second = await getOver(agent, `${base}/health`);
      expect(second.status).toBe(200);
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  }, 20_000);
});

describe('/metrics and the API reference in production', () => {
  let closed: IsolatedService;
  let guarded: IsolatedService;

  beforeAll(async () => {
    [closed, guarded] = await Promise.all([
      startIsolatedService({ ...PRODUCTION, DOCS_ENABLED: 'false' }),
      startIsolatedService({ ...PRODUCTION, METRICS_TOKEN, HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000' }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([closed?.stop(), guarded?.stop()]);
  });

  it('takes the keep-alive timeout from HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await getOver(agent, `${guarded.server.baseUrl}/health`)).toMatchObject({ status: 200, keepAlive: 'timeout=2' });
    } finally {
      agent.destroy();
    }
  });

  it('without METRICS_TOKEN answers /metrics 404, as an unknown path', async () => {
    const api = new Api(null, closed.server.baseUrl);
    expectError(await api.get('/metrics', { headers: viaProxy }), 404);
    expectError(await api.get('/metrics', { headers: viaProxy, authorization: `Bearer ${METRICS_TOKEN}` }), 404);
  });

  it('with METRICS_TOKEN serves /metrics only to Authorization: Bearer <token>', async () => {
    const api = new Api(null, guarded.server.baseUrl);
    for (const authorization of [null, 'Bearer wrong-token-0123456789abcdef', METRICS_TOKEN, `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`]) {
      const res = await api.get('/metrics', { headers: viaProxy, authorization });
      expectError(res, 401, { code: 'invalid_metrics_token' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.text).not.toContain('http_requests');
    }
    const res = await api.get('/metrics', { headers: viaProxy, authorization: `Bearer ${METRICS_TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toContain('# HELP');
  });

  it('serves /docs and /openapi.json by default and answers 404 there with DOCS_ENABLED=false', async () => {
    const open = new Api(null, guarded.server.baseUrl);
    expect((await open.get('/openapi.json', { headers: viaProxy })).body.info.title).toBe('Invoicing and Payments API');
    expect((await open.get('/docs', { headers: viaProxy })).status).toBe(200);
    const off = new Api(null, closed.server.baseUrl);
    expectError(await off.get('/openapi.json', { headers: viaProxy }), 404);
    expectError(await off.get('/docs', { headers: viaProxy }), 404);
    expectError(await off.get('/docs/', { headers: viaProxy }), 404);
  });
});

describe('started without NODE_ENV and without HOST (development mode)', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({ NODE_ENV: undefined, HOST: undefined, LOG_LEVEL: 'info' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('listens on loopback only', async () => {
    const { port } = service.server;
    const listening = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"listening on'));
    expect(listening).toHaveLength(1);
    expect(JSON.parse(listening[0])).toMatchObject({ host: '127.0.0.1', port });
    expect(await accepts('127.0.0.1', port)).toBe(true);
    // any address of this machine other than loopback refuses the connection
    const outside = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of outside) expect(await accepts(address, port)).toBe(false);
    // 127.0.0.2 is loopback too, but not the bound address
    expect(await accepts('127.0.0.2', port)).toBe(false);
  });

  it('prints one warning line naming what development mode relaxes', async () => {
    const warnings = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('NODE_ENV is not production'));
    expect(warnings).toHaveLength(1);
    const line = JSON.parse(warnings[0]);
    expect(line.level).toBe(40);
    expect(line.mode).toBe('development');
    expect(line.msg).toMatch(/plain HTTP/);
    expect(line.msg).toMatch(/webhooks to private/);
    expect(line.msg).toMatch(/CLOCK_CONTROL/);
    expect(line.msg).toMatch(/PUBLIC_BASE_URL/);
    expect(line.msg).toMatch(/\/metrics/);
    expect(line.msg).toMatch(/public development key \(SECRETS_KEY unset\)/);
    expect(line.msg).toMatch(/127\.0\.0\.1 only/);
    // no RATE_SOURCES outside production: live prices come from the table
    expect(line.msg).toMatch(/live prices are static/);
    // and it is development indeed: plain HTTP is served, /metrics is open
    const api = new Api(null, service.server.baseUrl);
    expect(expectSuccess(await api.get('/health')).status).toBe('ok');
    expect((await api.get('/metrics')).status).toBe(200);
  });
});
