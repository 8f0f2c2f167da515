import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase } from '../../support/pg';
import { ADMIN_TOKEN, loggedLine, RunningServer, startServer } from '../../support/server';
import { startIsolatedService } from '../../support/isolated';

const viaProxy = { 'x-forwarded-proto': 'https' };
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * A production-mode service refuses webhook URLs whose address is not public unicast, including
 * the IPv6 forms that carry an IPv4 address (compatible, SIIT, 6to4, NAT64) and Teredo.
 */
describe('webhook address guard in production', () => {
  const pgServer = process.env.TEST_PG_SERVER_URL;
  let databaseUrl: string | undefined;
  let server: RunningServer;
  let api: Api;

  beforeAll(async () => {
    databaseUrl = pgServer ? await createDatabase(pgServer) : undefined;
    server = await startServer({
      databaseUrl,
      env: { NODE_ENV: 'production', SECRETS_KEY, PUBLIC_BASE_URL: 'https://pay.example.com' },
      readyHeaders: viaProxy,
    });
    const res = await new Api(null, server.baseUrl).post(
      '/admin/organizations',
      { name: 'Guarded' },
      { headers: { 'x-admin-token': ADMIN_TOKEN, ...viaProxy } },
    );
    expect(res.status).toBe(201);
    api = new Api(res.body.data.test_key, server.baseUrl);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  });

  it.each([
    'https://[::127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[64:ff9b:1::7f00:1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
    'https://[fd00::1]/hook',
  ])('refuses %s with 400 on url', async (url) => {
    const body = expectError(await api.post('/webhooks', { url, event_types: ['*'] }, { headers: viaProxy }), 400, { field: 'url' });
    expect(body.validator.url).toMatch(/private, loopback or link-local/);
  });

  it('accepts a public address', async () => {
    const created = expectSuccess(await api.post('/webhooks', { url: 'https://[2606:4700:4700::1111]/hook', event_types: ['*'] }, { headers: viaProxy }), 201);
    expect(created.url).toBe('https://[2606:4700:4700::1111]/hook');
  });
});

describe('WEBHOOK_ALLOW_PRIVATE=true in production', () => {
  it('is said at start as a warning, as production relaxes nothing else without saying so', async () => {
    const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.test', SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') };
    const service = await startIsolatedService({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' });
    try {
      const line = await loggedLine(service.server, ['webhooks to private, loopback and plain-http addresses allowed'], 20_000);
      expect(JSON.parse(line).level).toBe(40);
    } finally {
      await service.stop();
    }
  }, 120_000);
});
