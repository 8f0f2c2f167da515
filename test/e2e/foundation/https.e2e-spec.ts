import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase } from '../../support/pg';
import { RunningServer, startServer } from '../../support/server';

const viaProxy = { 'x-forwarded-proto': 'https' };
const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

/** A production-mode service: plain HTTP is refused unless a trusted proxy says the client used HTTPS. */
describe('HTTPS in production', () => {
  const pgServer = process.env.TEST_PG_SERVER_URL;
  let databaseUrl: string | undefined;
  let server: RunningServer;

  beforeAll(async () => {
    databaseUrl = pgServer ? await createDatabase(pgServer) : undefined;
    server = await startServer({ databaseUrl, env: { NODE_ENV: 'production', SECRETS_KEY }, readyHeaders: viaProxy });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  it('answers plain HTTP with 400 https_required in the envelope', async () => {
    const api = new Api(null, server.baseUrl);
    const body = expectError(await api.get('/health'), 400, { code: 'https_required' });
    expect(body.error).toMatch(/HTTPS is required/);
    expect(body.env).toBe('production');
    expectError(await api.get('/auth/debug_token', { authorization: `sk_test_${'A'.repeat(40)}` }), 400, { code: 'https_required' });
    expectError(await api.get('/health', { headers: { 'x-forwarded-proto': 'http' } }), 400, { code: 'https_required' });
  });

  it('serves a request a trusted (loopback) proxy forwarded from HTTPS', async () => {
    const api = new Api(null, server.baseUrl);
    expect(expectSuccess(await api.get('/health', { headers: viaProxy }))).toEqual({ status: 'ok' });
    // past the HTTPS check, authentication applies as usual
    expectError(await api.get('/auth/debug_token', { headers: viaProxy }), 401, { code: 'missing_api_key' });
  });

  it('ignores X-Forwarded-Proto from a proxy it does not trust', async () => {
    const untrusting = await startServer({
      databaseUrl: databaseUrl ?? undefined,
      dataDir: undefined,
      env: { NODE_ENV: 'production', SECRETS_KEY, TRUST_PROXY: '10.1.2.3' },
      readyHeaders: viaProxy,
      readyTimeoutMs: 5_000,
    }).catch((e: Error) => e);
    // it never becomes ready: every probe is plain HTTP from an untrusted hop
    expect(untrusting).toBeInstanceOf(Error);
    expect((untrusting as Error).message).toMatch(/did not become ready/);
  }, 60_000);
});
