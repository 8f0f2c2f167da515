import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';

/** The request lines a service wrote for one request id (logs are written in batches: wait for the marker). */
async function linesFor(service: IsolatedService, requestId: string, waitFor = requestId): Promise<Array<{ level: number; req: { url: string } }>> {
  const read = () =>
    service.server
      .output()
      .split('\n')
      .filter((l) => l.includes('"responseTime"'));
  for (let attempt = 0; attempt < 50 && !read().some((l) => l.includes(waitFor)); attempt++) await new Promise((r) => setTimeout(r, 100));
  return read()
    .filter((l) => l.includes(requestId))
    .map((l) => JSON.parse(l));
}

/** Health probes come every few seconds: their request lines go to debug, every other request stays at info. */
describe('health probes in the request log', () => {
  const services: IsolatedService[] = [];
  afterAll(async () => Promise.all(services.map((s) => s.stop())));

  it('logs /health and /health/ready at debug: absent at LOG_LEVEL=info, while other requests are logged', async () => {
    const service = await startIsolatedService({ LOG_LEVEL: 'info' });
    services.push(service);
    const api = new Api(null, service.server.baseUrl);
    expectSuccess(await api.get('/health', { headers: { 'x-request-id': 'probe-1' } }));
    expectSuccess(await api.get('/health/ready', { headers: { 'x-request-id': 'probe-2' } }));
    await api.get('/auth/debug_token', { headers: { 'x-request-id': 'not-a-probe' } });
    expect(await linesFor(service, 'not-a-probe')).toEqual([
      expect.objectContaining({ level: 30, req: expect.objectContaining({ url: '/auth/debug_token' }) }),
    ]);
    expect(await linesFor(service, 'probe-1', 'not-a-probe')).toEqual([]);
    expect(await linesFor(service, 'probe-2', 'not-a-probe')).toEqual([]);
  }, 120_000);

  it('shows them at LOG_LEVEL=debug, at level debug', async () => {
    const service = await startIsolatedService({ LOG_LEVEL: 'debug' });
    services.push(service);
    const api = new Api(null, service.server.baseUrl);
    expectSuccess(await api.get('/health?probe=lb', { headers: { 'x-request-id': 'probe-3' } }));
    expect(await linesFor(service, 'probe-3')).toEqual([expect.objectContaining({ level: 20, req: expect.objectContaining({ url: '/health?probe=lb' }) })]);
  }, 120_000);
});
