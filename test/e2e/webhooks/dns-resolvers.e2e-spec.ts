import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { DnsAnswer, FakeDns } from '../../support/fake-dns';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';

const viaProxy = { 'x-forwarded-proto': 'https' };
const SECRETS_KEY = Buffer.alloc(32, 5).toString('base64');

/**
 * With the address guard on, endpoint hosts are resolved through DNS itself (the name servers of
 * WEBHOOK_DNS_SERVERS, here a local one), each query with its own short timeout: a merchant's host whose
 * name server never answers costs that merchant's delivery a few seconds of the event loop's waiting,
 * not one of the thread pool's four threads for the system resolver's whole timeout.
 */
describe('webhook endpoint hosts resolved through the configured name servers', () => {
  let dns: FakeDns;
  let server: RunningServer;
  let api: Api;

  beforeAll(async () => {
    dns = new FakeDns(
      new Map<string, DnsAnswer>([
        ['inside.example', { a: ['10.1.2.3'] }],
        ['public.example', { a: ['93.184.215.14'] }],
        ['silent.example', 'silent'],
      ]),
    );
    await dns.start();
    server = await startServer({
      env: {
        NODE_ENV: 'production',
        SECRETS_KEY,
        PUBLIC_BASE_URL: 'https://pay.example.com',
        WEBHOOK_DNS_SERVERS: dns.server,
        WEBHOOK_DISPATCH_INTERVAL_MS: '100',
        WEBHOOK_TIMEOUT_MS: '30000',
        WEBHOOK_RETRY_SCHEDULE: '10h',
      },
      readyHeaders: viaProxy,
    });
    const res = await new Api(null, server.baseUrl).post(
      '/admin/organizations',
      { name: 'Resolved' },
      { headers: { 'x-admin-token': ADMIN_TOKEN, ...viaProxy } },
    );
    expect(res.status).toBe(201);
    api = new Api(res.body.data.test_key, server.baseUrl);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await dns?.stop();
  });

  it('refuses a host they resolve to a private address, one they do not know and one they never answer for', async () => {
    const inside = expectError(await api.post('/webhooks', { url: 'https://inside.example/hook', event_types: ['*'] }, { headers: viaProxy }), 400, {
      field: 'url',
    });
    expect(inside.validator.url).toMatch(/private, loopback or link-local/);
    expect(dns.asked).toContain('inside.example');
    for (const host of ['unknown.example', 'silent.example']) {
      const refused = expectError(await api.post('/webhooks', { url: `https://${host}/hook`, event_types: ['*'] }, { headers: viaProxy }), 400, {
        field: 'url',
      });
      expect(refused.validator.url).toMatch(/does not resolve/);
      expect(dns.asked).toContain(host);
    }
  }, 60_000);

  it("gives a delivery up on the name server's timeout when the endpoint's name server goes silent", async () => {
    const endpoint = expectSuccess(
      await api.post('/webhooks', { url: 'https://public.example/hook', event_types: ['invoice.created'] }, { headers: viaProxy }),
      201,
    );
    dns.answers.set('public.example', 'silent');
    const asked = dns.asked.length;
    expectSuccess(
      await api.post(
        '/invoices/create',
        { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }], customer_email: 'payer@example.com' },
        { headers: viaProxy },
      ),
      201,
    );
    const [attempt] = await eventually(async () => {
      const page = expectSuccess(await api.post(`/webhooks/${endpoint.id}/attempts`, {}, { headers: viaProxy }));
      if (!page.items.length) throw new Error('no attempt yet');
      return page.items;
    }, 30_000);
    expect(dns.asked.slice(asked)).toContain('public.example');
    expect(attempt.succeeded).toBe(false);
    expect(attempt.error).toMatch(/^could not deliver: (ETIMEOUT|ECONNREFUSED|ESERVFAIL)/);
    // Well inside WEBHOOK_TIMEOUT_MS (30 s): the query's own timeout ended it.
    expect(attempt.duration_ms).toBeLessThan(20_000);
  }, 60_000);
});
