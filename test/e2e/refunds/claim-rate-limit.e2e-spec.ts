import { Api } from '../../support/api';
import { expectError } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';

/**
 * The payer's claim routes are keyless, so they share the anonymous budget of the payer calls
 * (RATE_LIMIT_ANONYMOUS per RATE_LIMIT_WINDOW_MS): guessing tokens cannot run unbounded.
 */
describe('refund claims under the anonymous rate limit', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ RATE_LIMIT_ANONYMOUS: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  });
  afterAll(async () => service?.stop());

  it('answers 429 with Retry-After past the budget, for the JSON claim and for the page', async () => {
    const payer = new Api(null, service.server.baseUrl);
    const body = { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await payer.post(`/refund_claims/rc_guess${i}`, body)).status);
    expect(statuses).toEqual([404, 404, 404]);
    const refused = await payer.post('/refund_claims/rc_guess4', body);
    expectError(refused, 429, { code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await payer.get('/refund_claims/rc_guess5');
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).not.toBeNull();
    expect(page.text).toContain('Too many requests');
  });
});
