import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createDatabase, dropDatabase } from '../../support/pg';
import { RunningServer, startServer } from '../../support/server';

const viaProxy = { 'x-forwarded-proto': 'https' };
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') };

/** A production-mode service: plain HTTP is refused unless a trusted proxy says the client used HTTPS. */
describe('HTTPS in production', () => {
  const pgServer = process.env.TEST_PG_SERVER_URL;
  let databaseUrl: string | undefined;
  let server: RunningServer;

  beforeAll(async () => {
    databaseUrl = pgServer ? await createDatabase(pgServer) : undefined;
    // no readyHeaders: the readiness probe is plain HTTP, as a load balancer's is
    server = await startServer({ databaseUrl, env: PRODUCTION });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  it('answers plain HTTP with 400 https_required in the envelope', async () => {
    const api = new Api(null, server.baseUrl);
    const body = expectError(await api.get('/auth/debug_token', { authorization: `sk_test_${'A'.repeat(40)}` }), 400, { code: 'https_required' });
    expect(body.error).toMatch(/HTTPS is required/);
    expect(body.env).toBe('production');
    expectError(await api.get('/files', { headers: { 'x-forwarded-proto': 'http' } }), 400, { code: 'https_required' });
  });

  it('refuses the API reference over plain HTTP too, and serves it forwarded from HTTPS', async () => {
    const api = new Api(null, server.baseUrl);
    for (const path of ['/openapi.json', '/docs', '/docs/', '/docs-yaml']) {
      const refused = expectError(await api.get(path), 400, { code: 'https_required' });
      expect(refused.env).toBe('production');
    }
    const served = await api.get('/openapi.json', { headers: viaProxy });
    expect(served.status).toBe(200);
    expect(served.body.openapi).toMatch(/^3\./);
    expect((await api.get('/docs/', { headers: viaProxy })).status).toBe(200);
    expect((await api.get('/docs-yaml', { headers: viaProxy })).text).toMatch(/^openapi: 3\./m);
  });

  it('answers the health checks over plain HTTP (load balancers and orchestrators probe instances that way)', async () => {
    const api = new Api(null, server.baseUrl);
    expect(expectSuccess(await api.get('/health'))).toEqual({ status: 'ok' });
    expect(expectSuccess(await api.get('/health/ready'))).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
    expect(expectSuccess(await api.get('/health?probe=lb', { headers: { 'x-forwarded-proto': 'http' } }))).toEqual({ status: 'ok' });
    expect((await api.get('/health/ready')).body.env).toBe('production');
  });

  it('serves a request a trusted (loopback) proxy forwarded from HTTPS', async () => {
    const api = new Api(null, server.baseUrl);
    expect(expectSuccess(await api.get('/health', { headers: viaProxy }))).toEqual({ status: 'ok' });
    // past the HTTPS check, authentication applies as usual
    expectError(await api.get('/auth/debug_token', { headers: viaProxy }), 401, { code: 'missing_api_key' });
  });

  it('ignores X-Forwarded-Proto from a proxy it does not trust', async () => {
    let untrusting: IsolatedService | undefined;
    try {
      untrusting = await startIsolatedService({ ...PRODUCTION, TRUST_PROXY: '10.1.2.3' });
      const api = new Api(null, untrusting.server.baseUrl);
      expectError(await api.get('/auth/debug_token', { headers: viaProxy }), 400, { code: 'https_required' });
      expectSuccess(await api.get('/health/ready', { headers: viaProxy }));
    } finally {
      await untrusting?.stop();
    }
  }, 60_000);
});
