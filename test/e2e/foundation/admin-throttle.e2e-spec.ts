import { expectError } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { rawRequest } from '../../support/raw-http';
import { RedisServer } from '../../support/redis';
import { ADMIN_TOKEN, freePort } from '../../support/server';

describe('/admin token guesses', () => {
  let redis: RedisServer;
  let service: IsolatedService;

  // Counted in Redis, as behind a load balancer: every count is a round trip, so requests sent at once interleave.
  beforeAll(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
    service = await startIsolatedService({ ADMIN_AUTH_FAILURES: '3', REDIS_URL: redis.url });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await redis?.kill();
  });

  it('answers 429 to an address after a few wrong tokens in a minute, without blocking the operator elsewhere', async () => {
    const url = `${service.server.baseUrl}/admin/organizations`;
    const body = JSON.stringify({ name: 'Throttled' });
    const from = (localAddress: string, token: string) => rawRequest(url, { method: 'POST', body, localAddress, headers: { 'x-admin-token': token } });
    const wrong = 'wrong-admin-token-0123456789';

    // a request without the header is not a guess and is not counted
    for (let i = 0; i < 5; i++) expect((await rawRequest(url, { method: 'POST', body, localAddress: '127.0.0.2' })).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      const res = await from('127.0.0.2', wrong);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_admin_token');
    }
    const blocked = await from('127.0.0.2', wrong);
    expectError(blocked as any, 429, { code: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // the blocked address cannot try the right token either: that is what makes guessing pointless
    expect((await from('127.0.0.2', ADMIN_TOKEN)).status).toBe(429);
    // the operator on another address is not affected
    const created = await from('127.0.0.3', ADMIN_TOKEN);
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe('Throttled');
  });

  it('compares no more wrong tokens than the budget when they are sent at once', async () => {
    const url = `${service.server.baseUrl}/admin/organizations`;
    const body = JSON.stringify({ name: 'Guessed at once' });
    const guesses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rawRequest(url, { method: 'POST', body, localAddress: '127.0.0.4', headers: { 'x-admin-token': `wrong-guess-${i}-0123456789` } }),
      ),
    );
    expect(guesses.map((g) => g.status).sort()).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
  });

  it('serves the right token sent many times at once (it is never counted)', async () => {
    const url = `${service.server.baseUrl}/admin/organizations`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rawRequest(url, { method: 'POST', body: JSON.stringify({ name: `Batch ${i}` }), localAddress: '127.0.0.6', headers: { 'x-admin-token': ADMIN_TOKEN } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array<number>(10).fill(201));
  });

  it('does not count the right token against its address', async () => {
    const url = `${service.server.baseUrl}/admin/organizations`;
    const from = (token: string) =>
      rawRequest(url, { method: 'POST', body: JSON.stringify({ name: 'Operator' }), localAddress: '127.0.0.5', headers: { 'x-admin-token': token } });
    for (let i = 0; i < 5; i++) expect((await from(ADMIN_TOKEN)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await from('wrong-admin-token-0123456789')).status).toBe(401);
    expect((await from(ADMIN_TOKEN)).status).toBe(429);
  });
});
