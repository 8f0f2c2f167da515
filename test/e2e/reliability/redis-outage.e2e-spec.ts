import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { rawRequest } from '../../support/raw-http';
import { RedisServer } from '../../support/redis';
import { ADMIN_TOKEN, freePort, linesWith, RunningServer, startServer } from '../../support/server';

/** Far above a prompt answer on a loaded machine, far below the seconds a request waited for Redis before. */
const PROMPT_MS = 1500;

const LIMITS = {
  RATE_LIMIT_TEST: '5',
  RATE_LIMIT_ANONYMOUS: '3',
  RATE_LIMIT_AUTH_FAILURES: '3',
  ADMIN_AUTH_FAILURES: '3',
  RATE_LIMIT_WINDOW_MS: '60000',
};

/** Waits until the current minute (the lockouts' window, and the budgets' here) has at least `marginMs` left. */
async function awayFromMinuteEdge(marginMs: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

/** The status of a request and how long it took. */
async function timed(call: () => Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await call();
  return { status: res.status, ms: Date.now() - started };
}

/** Statuses of `n` requests made one after another, each of which must answer within PROMPT_MS. */
async function statuses(n: number, call: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const { status, ms } = await timed(call);
    expect(ms).toBeLessThan(PROMPT_MS);
    out.push(status);
  }
  return out;
}

async function metric(server: RunningServer, name: string): Promise<number | null> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Checks every limit on `server` with fresh budgets (a new key, addresses not used before). */
async function expectEveryLimit(service: IsolatedService, server: RunningServer, addresses: { admin: string; keyless: string; guesser: string }) {
  const org = await service.createOrg();
  const keyed = new Api(org.testKey, server.baseUrl);
  expect(await statuses(6, () => keyed.get('/auth/debug_token'))).toEqual([200, 200, 200, 200, 200, 429]);

  const invoice = `${server.baseUrl}/invoices/invoice_00000000-0000-7000-8000-000000000000`;
  const keyless = () => rawRequest(invoice, { method: 'POST', body: '{}', localAddress: addresses.keyless });
  expect(await statuses(4, keyless)).toEqual([404, 404, 404, 429]);

  const unknownKey = () =>
    rawRequest(`${server.baseUrl}/auth/debug_token`, { localAddress: addresses.guesser, headers: { authorization: `Bearer sk_test_${'Q'.repeat(40)}` } });
  expect(await statuses(4, unknownKey)).toEqual([401, 401, 401, 429]);
  // the lockout is for unknown keys only: a valid key from that address still works
  expect(
    (await rawRequest(`${server.baseUrl}/auth/debug_token`, { localAddress: addresses.guesser, headers: { authorization: `Bearer ${org.liveKey}` } })).status,
  ).toBe(200);

  const admin = (token: string) =>
    rawRequest(`${server.baseUrl}/admin/organizations`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Guess' }),
      localAddress: addresses.admin,
      headers: { 'x-admin-token': token },
    });
  expect(await statuses(4, () => admin('wrong-admin-token-0123456789'))).toEqual([401, 401, 401, 429]);
  expect((await admin(ADMIN_TOKEN)).status).toBe(429);
}

describe('rate limits while Redis is down', () => {
  let redis: RedisServer;
  let service: IsolatedService;
  let second: RunningServer;

  beforeAll(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
    const env = { ...LIMITS, REDIS_URL: redis.url };
    service = await startIsolatedService({ ...env, LOG_LEVEL: 'info' });
    second = await startServer({ ...(service.databaseUrl ? { databaseUrl: service.databaseUrl } : {}), env });
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await service?.stop();
    await redis?.kill();
  });

  /** Two instances draw from one budget: 3 requests on each with a budget of 5. */
  async function expectSharedBudget() {
    const org = await service.createOrg();
    const onFirst = await statuses(3, () => org.test.get('/auth/debug_token'));
    const onSecond = await statuses(3, () => new Api(org.testKey, second.baseUrl).get('/auth/debug_token'));
    expect([...onFirst, ...onSecond].sort()).toEqual([200, 200, 200, 200, 200, 429]);
  }

  it('shares the budgets through Redis while it runs', async () => {
    await awayFromMinuteEdge(20_000);
    await expectSharedBudget();
    expect(await metric(service.server, 'rate_limit_redis_available')).toBe(1);
    expect(await metric(service.server, 'rate_limit_local_fallbacks_total')).toBe(0);
  });

  it('answers promptly and keeps every limit per process once Redis is gone, still ready', async () => {
    await redis.kill();
    await awayFromMinuteEdge(25_000);
    await expectEveryLimit(service, service.server, { admin: '127.0.0.2', keyless: '127.0.0.3', guesser: '127.0.0.4' });
    // each process counts its own: the other instance has its own budget for the same address
    await expectEveryLimit(service, second, { admin: '127.0.0.2', keyless: '127.0.0.3', guesser: '127.0.0.4' });

    expectSuccess(await new Api(null, service.server.baseUrl).get('/health/ready'));
    expect(await metric(service.server, 'rate_limit_redis_available')).toBe(0);
    expect(await metric(service.server, 'rate_limit_local_fallbacks_total')).toBeGreaterThanOrEqual(20);
    // reconnect attempts go on in the background, and one line said so
    await new Promise((r) => setTimeout(r, 2000));
    expect(linesWith(service.server, 'Redis unreachable')).toHaveLength(1);
    expect(linesWith(second, 'Redis unreachable')).toHaveLength(1);
    expect(linesWith(service.server, 'Redis unreachable')[0]).toContain('"level":40');
  });

  it('shares the budgets again once Redis is back on its port', async () => {
    await redis.start();
    for (const server of [service.server, second]) {
      await until('the shared counts', async () => (await metric(server, 'rate_limit_redis_available')) === 1);
    }
    await awayFromMinuteEdge(20_000);
    await expectSharedBudget();
    expect(linesWith(service.server, 'Redis answers again')).toHaveLength(1);
    expect(linesWith(service.server, 'Redis unreachable')).toHaveLength(1);
  });
});

describe('rate limits with a Redis that never answered', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    // a port where nothing listens
    service = await startIsolatedService({ ...LIMITS, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  }, 180_000);

  afterAll(async () => service?.stop());

  it('starts, answers promptly and counts every limit in the process', async () => {
    expectSuccess(await new Api(null, service.server.baseUrl).get('/health/ready'));
    await awayFromMinuteEdge(25_000);
    await expectEveryLimit(service, service.server, { admin: '127.0.0.2', keyless: '127.0.0.3', guesser: '127.0.0.4' });
    expect(await metric(service.server, 'rate_limit_redis_available')).toBe(0);
    expect(await metric(service.server, 'rate_limit_local_fallbacks_total')).toBeGreaterThanOrEqual(10);
    await new Promise((r) => setTimeout(r, 2000));
    expect(linesWith(service.server, 'Redis unreachable')).toHaveLength(1);
  });
});
