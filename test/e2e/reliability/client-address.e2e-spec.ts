import { Api, ApiResponse } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';

/**
 * The client address that keyless budgets and the failed-key lockout count. The tests connect over
 * loopback, so a service that trusts loopback (the default) takes X-Forwarded-For as a proxy on the
 * same host would send it, and a service that trusts only another subnet sees the test as a client
 * connecting directly, whatever X-Forwarded-For it claims.
 */

const WINDOW_MS = 60_000;
const UNKNOWN_INVOICE = '/invoices/invoice_00000000-0000-7000-8000-000000000000/short_state';

/** Waits until the current fixed window has at least `marginMs` left, so a burst is counted in one window. */
async function awayFromWindowEdge(marginMs = 10_000) {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

const payer = (base: string, forwardedFor: string) => new Api(null, base).get(UNKNOWN_INVOICE, { headers: { 'x-forwarded-for': forwardedFor } });
const withKey = (base: string, key: string, forwardedFor: string) =>
  new Api(key, base).get('/auth/debug_token', { headers: { 'x-forwarded-for': forwardedFor } });
const badKey = (i: number) => `sk_test_${String(i).padStart(40, 'Q')}`;
const refused = (answers: ApiResponse[]) => answers.filter((r) => r.status === 429).length;

describe('client address behind an untrusted hop', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    // The load balancer lives in 10.0.0.0/8; the test's loopback connection is a client of its own.
    service = await startIsolatedService({
      TRUST_PROXY: '10.0.0.0/8',
      RATE_LIMIT_ANONYMOUS: '5',
      RATE_LIMIT_AUTH_FAILURES: '5',
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    });
  });
  afterAll(async () => service?.stop());

  it('does not let rotating X-Forwarded-For values escape the keyless payer budget', async () => {
    await awayFromWindowEdge();
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 12; i++) answers.push(await payer(service.server.baseUrl, `198.51.100.${i + 1}`));
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
    expect(refused(answers)).toBe(7);
    expectError(answers[11], 429, { code: 'rate_limited' });
  });

  it('does not let rotating X-Forwarded-For values escape the failed-key lockout', async () => {
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 10; i++) answers.push(await withKey(service.server.baseUrl, badKey(i), `203.0.113.${i + 1}`));
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(answers.slice(5).map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expectError(answers[9], 429, { code: 'rate_limited' });
  });
});

describe('client address from a trusted proxy on the same host', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    // TRUST_PROXY left at its default: loopback only.
    service = await startIsolatedService({
      RATE_LIMIT_ANONYMOUS: '5',
      RATE_LIMIT_AUTH_FAILURES: '5',
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      RATE_LIMIT_TEST: '100000',
    });
  });
  afterAll(async () => service?.stop());

  it('never lets bad keys from an address make a valid key from that address get 429', async () => {
    const org = await service.createOrg();
    const base = service.server.baseUrl;
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 8; i++) answers.push(await withKey(base, badKey(i), '192.0.2.10'));
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // the valid key is judged on its own budget
    for (let i = 0; i < 5; i++) expectSuccess(await withKey(base, org.testKey, '192.0.2.10'));
    // and the address stays locked out for unknown keys
    expectError(await withKey(base, badKey(99), '192.0.2.10'), 429, { code: 'rate_limited' });
    // another address is not affected
    expectError(await withKey(base, badKey(100), '192.0.2.11'), 401);
  });

  it('counts IPv6 clients per /64: two addresses of one /64 share a budget, the next /64 has its own', async () => {
    await awayFromWindowEdge();
    const base = service.server.baseUrl;
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 8; i++) answers.push(await payer(base, `2001:db8:5:6:${(i * 7919).toString(16)}::${i + 1}`));
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 429, 429, 429]);
    expectError(await payer(base, '2001:db8:5:6::ffff'), 429, { code: 'rate_limited' });
    expect((await payer(base, '2001:db8:5:7::1')).status).toBe(404);
  });

  it("counts the checkout page in the payer's budget by the same client: rotating addresses of one /64 share it", async () => {
    await awayFromWindowEdge();
    const base = service.server.baseUrl;
    const page = (forwardedFor: string) =>
      fetch(`${base}/checkout/invoice_00000000-0000-7000-8000-000000000000`, { headers: { 'x-forwarded-for': forwardedFor } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await payer(base, `2001:db8:77:1::${i + 1}`)).status);
    for (let i = 0; i < 4; i++) statuses.push((await page(`2001:db8:77:1:${(i * 31).toString(16)}::${i + 10}`)).status);
    // Three API calls and two pages spend the budget of 5; the other pages, from other addresses of the /64, are refused.
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
    expect((await page('2001:db8:77:2::1')).status).toBe(404);
  });

  it('counts failed keys per /64 too', async () => {
    const base = service.server.baseUrl;
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 7; i++) answers.push(await withKey(base, badKey(200 + i), `2001:db8:9:9::${(i + 1).toString(16)}`));
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });
});
