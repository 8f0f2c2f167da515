import { expectError } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { rawRequest } from '../../support/raw-http';
import { ADMIN_TOKEN } from '../../support/server';

describe('/admin token guesses', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({ ADMIN_AUTH_FAILURES: '3' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
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
});
