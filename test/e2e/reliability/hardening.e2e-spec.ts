import { anonymous, Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN } from '../../support/server';

const EXPOSED = ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed'];

describe('security headers', () => {
  it('sends a deny-all content policy and the usual protections on API responses', async () => {
    const org = await createOrg();
    const res = await org.test.get('/products');
    expectSuccess(res);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
    // without CORS_ORIGINS no CORS header at all
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps the Swagger UI working under /docs with a policy that allows its own scripts, inline styles and data: images', async () => {
    const page = await anonymous().get('/docs');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain('img-src');
    expect(csp).toContain('data:');
    // every script the page loads is served from our origin and answers
    const assets = [...page.text.matchAll(/<(?:script src|link rel="stylesheet" type="text\/css" href)=['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const src of assets) {
      expect(src).not.toMatch(/^https?:/);
      const path = new URL(src, `http://x/docs`).pathname;
      expect(path).toMatch(/^\/docs\//);
      expect((await anonymous().get(path)).status).toBe(200);
    }
    expect(page.text).not.toMatch(/<script>(?!\s*<\/script>)/);
    expect((await anonymous().get('/openapi.json')).status).toBe(200);
  });
});

describe('CORS_ORIGINS', () => {
  let listed: IsolatedService;
  let any: IsolatedService;

  beforeAll(async () => {
    [listed, any] = await Promise.all([
      startIsolatedService({ CORS_ORIGINS: 'https://shop.example.com, https://admin.example.com' }),
      startIsolatedService({ CORS_ORIGINS: '*' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([listed?.stop(), any?.stop()]);
  });

  it('answers a listed origin (preflight and request) and exposes the headers clients need', async () => {
    const org = await listed.createOrg();
    const preflight = await new Api(null, listed.server.baseUrl).request('OPTIONS', '/invoices/create', {
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase()).toContain('idempotency-key');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');

    const res = await org.test.get('/products', { headers: { origin: 'https://admin.example.com' } });
    expectSuccess(res);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
    const exposed = res.headers
      .get('access-control-expose-headers')!
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const name of EXPOSED) expect(exposed).toContain(name);
  });

  it('sends nothing for an origin not in the list', async () => {
    const org = await listed.createOrg();
    const res = await org.test.get('/products', { headers: { origin: 'https://evil.example.net' } });
    expectSuccess(res);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows any origin with *', async () => {
    const org = await any.createOrg();
    const res = await org.test.get('/products', { headers: { origin: 'https://anywhere.example.org' } });
    expectSuccess(res);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('logs never carry keys or tokens', () => {
  it('at the most verbose level, after keyed, failed and operator requests, the output holds no key, secret or admin token', async () => {
    const service = await startIsolatedService({ LOG_LEVEL: 'trace' });
    try {
      const org = await service.createOrg();
      const base = service.server.baseUrl;
      expectSuccess(await org.test.get('/auth/debug_token'));
      expectSuccess(await new Api(`Bearer ${org.liveKey}`, base).get('/auth/debug_token'));
      const wrong = `${org.testKey.slice(0, -4)}zzzz`;
      expect((await new Api(wrong, base).get('/products')).status).toBe(401);
      expect((await new Api(org.testKey, base).post('/products', { name: 1 })).status).toBe(400);
      const made = await new Api(null, base).post(`/admin/organizations/${org.id}/keys`, { mode: 'live' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      const extraKey = made.body.data.key as string;
      await new Api(null, base).post('/admin/keys/revoke', { key: extraKey }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
      await new Promise((r) => setTimeout(r, 300));
      const out = service.server.output();
      expect(out.length).toBeGreaterThan(1000);
      for (const secret of [org.testKey, org.liveKey, wrong, extraKey, ADMIN_TOKEN]) expect(out).not.toContain(secret);
      // the secret part alone (after the prefix) never appears either
      for (const secret of [org.testKey, org.liveKey, extraKey]) expect(out).not.toContain(secret.replace(/^sk_(test|live)_/, ''));
    } finally {
      await service.stop();
    }
  });
});
