import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
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

describe('/metrics and the API reference in production', () => {
  let closed: IsolatedService;
  let guarded: IsolatedService;

  beforeAll(async () => {
    [closed, guarded] = await Promise.all([
      startIsolatedService({ ...PRODUCTION, DOCS_ENABLED: 'false' }),
      startIsolatedService({ ...PRODUCTION, METRICS_TOKEN }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([closed?.stop(), guarded?.stop()]);
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
    // and it is development indeed: plain HTTP is served, /metrics is open
    const api = new Api(null, service.server.baseUrl);
    expect(expectSuccess(await api.get('/health')).status).toBe('ok');
    expect((await api.get('/metrics')).status).toBe(200);
  });
});
