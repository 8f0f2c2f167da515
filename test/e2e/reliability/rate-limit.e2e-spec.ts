import Redis from 'ioredis';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN, startServer } from '../../support/server';

async function burst(api: Api, n: number) {
  return Promise.all(Array.from({ length: n }, () => api.get('/auth/debug_token')));
}

/** Waits until the current fixed window of `windowMs` has at least `marginMs` left. */
async function awayFromWindowEdge(windowMs: number, marginMs: number) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

describe('rate limits', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ RATE_LIMIT_TEST: '5', RATE_LIMIT_LIVE: '8', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_AUTH_FAILURES: '100000' });
  });
  afterAll(async () => service?.stop());

  it('gives each key its budget with RateLimit headers, then 429 with Retry-After in the envelope', async () => {
    const org = await service.createOrg();
    await awayFromWindowEdge(60_000, 5000);
    const first = await org.test.get('/auth/debug_token');
    expectSuccess(first);
    expect(first.headers.get('ratelimit-limit')).toBe('5');
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    const rest = await burst(org.test, 9);
    expect(rest.filter((r) => r.status === 200)).toHaveLength(4);
    const refused = rest.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expectError(refused[0], 429, { code: 'rate_limited' });
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused[0].headers.get('ratelimit-remaining')).toBe('0');

    // the live key of the same organization has its own, larger budget
    const live = await burst(org.live, 10);
    expect(live.filter((r) => r.status === 200)).toHaveLength(8);
  });

  it("shares an organization's budget among its keys of a mode: four keys' worth (RATE_LIMIT_ORGANIZATION_KEYS), whatever it makes", async () => {
    const org = await service.createOrg();
    const other = await service.createOrg();
    const keyOf = async () => {
      const res = await new Api(null, service.server.baseUrl).post(
        `/admin/organizations/${org.id}/keys`,
        { mode: 'test' },
        { headers: { 'x-admin-token': ADMIN_TOKEN } },
      );
      expect(res.status).toBe(201);
      return new Api(res.body.data.key, service.server.baseUrl);
    };
    const keys = [org.test, await keyOf(), await keyOf(), await keyOf(), await keyOf()];
    await awayFromWindowEdge(60_000, 10_000);
    // Four keys use their five each: twenty, the organization's budget.
    for (const key of keys.slice(0, 4)) expect((await burst(key, 5)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // A fifth key, its own budget untouched, is refused: the organization's is spent, and the headers say so.
    const refused = await keys[4].get('/auth/debug_token');
    expectError(refused, 429, { code: 'rate_limited' });
    expect(refused.headers.get('ratelimit-limit')).toBe('20');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    // Another organization's key is not held back, nor the organization's live keys.
    expectSuccess(await other.test.get('/auth/debug_token'));
    expectSuccess(await org.live.get('/auth/debug_token'));
  });

  it("counts against the organization's budget only what a key's own budget let through: a key in a loop leaves the others theirs", async () => {
    const org = await service.createOrg();
    const res = await new Api(null, service.server.baseUrl).post(
      `/admin/organizations/${org.id}/keys`,
      { mode: 'test' },
      { headers: { 'x-admin-token': ADMIN_TOKEN } },
    );
    expect(res.status).toBe(201);
    const second = new Api(res.body.data.key, service.server.baseUrl);
    await awayFromWindowEdge(60_000, 10_000);
    // The first key sends 30 (a script in a loop): its five are served, the rest refused by its own budget.
    const looping = await burst(org.test, 30);
    expect(looping.filter((r) => r.status === 200)).toHaveLength(5);
    // The organization's budget (20) spent five: the second key gets its own five.
    const after = await burst(second, 5);
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(after.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('failed authentication budget', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_TEST: '100000' });
  });
  afterAll(async () => service?.stop());

  it("answers 429 to an address's unknown keys after too many, while a valid key from it keeps working", async () => {
    const org = await service.createOrg();
    expectSuccess(await org.test.get('/auth/debug_token'));
    const guesser = new Api(`sk_test_${'Z'.repeat(40)}`, service.server.baseUrl);
    for (let i = 0; i < 3; i++) expectError(await guesser.get('/auth/debug_token'), 401);
    expectError(await guesser.get('/auth/debug_token'), 429, { code: 'rate_limited' });
    expectError(await new Api(`sk_test_${'Y'.repeat(40)}`, service.server.baseUrl).get('/auth/debug_token'), 429, { code: 'rate_limited' });
    expectSuccess(await org.test.get('/auth/debug_token'));
  });
});

describe('rate limits shared through Redis', () => {
  let service: IsolatedService;
  let second: Awaited<ReturnType<typeof startServer>>;
  const prefix = `t${Date.now()}`;
  beforeAll(async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_TEST: '6', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_AUTH_FAILURES: '100000' };
    service = await startIsolatedService(env);
    second = await startServer({ ...(service.databaseUrl ? { databaseUrl: service.databaseUrl } : {}), env });
    expect(prefix).toBeTruthy();
  });
  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  it('gives every counter it makes in Redis an expiry, a look without counting (the /admin guard, console sign-in) included', async () => {
    await awayFromWindowEdge(60_000, 5000);
    // An /admin request looks at the address's failure count without adding to it.
    expect((await new Api(null, service.server.baseUrl).post('/admin/organizations', { name: 'x' })).status).toBe(401);
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
    try {
      await redis.connect();
      const keys = await redis.keys(`ratelimit:adminfail:*:60000:${Math.floor(Date.now() / 60_000)}`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const ttl = await redis.pttl(key);
        expect([key, ttl > 0 && ttl <= 60_000]).toEqual([key, true]);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('makes two service processes draw from one budget per key', async () => {
    const org = await service.createOrg();
    const other = new Api(org.testKey, second.baseUrl);
    await awayFromWindowEdge(60_000, 5000);
    const results = (await Promise.all([burst(org.test, 6), burst(other, 6)])).flat();
    expect(results.filter((r) => r.status === 200)).toHaveLength(6);
    expect(results.filter((r) => r.status === 429)).toHaveLength(6);
  });
});
