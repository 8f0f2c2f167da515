import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';

interface RequestLine {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  responseTime: number;
}

/** The request lines a service wrote for one request id (logs are written in batches: wait for them). */
async function linesFor(service: IsolatedService, requestId: string): Promise<RequestLine[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const lines = service.server
      .output()
      .split('\n')
      .filter((l) => l.includes(requestId) && l.includes('"responseTime"'));
    if (lines.length) return lines.map((l) => JSON.parse(l) as RequestLine);
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}

/** Every answered request leaves one JSON log line and one metrics sample. */
describe('request log and metrics', () => {
  let service: IsolatedService;
  let test: Api;
  let testKey: string;

  beforeAll(async () => {
    service = await startIsolatedService({ LOG_LEVEL: 'info' });
    ({ test, testKey } = await service.createOrg('Logged org'));
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('logs one line per request with its id, method, url, status and time, and never the key', async () => {
    expectSuccess(await test.get('/auth/debug_token', { headers: { 'x-request-id': 'log-check-1' } }));
    const [line, ...more] = await linesFor(service, 'log-check-1');
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { id: 'log-check-1', method: 'GET', url: '/auth/debug_token' },
      res: { statusCode: 200 },
    });
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
    expect(service.server.output()).not.toContain(testKey);
  });

  it('logs refused requests with their status', async () => {
    expectError(await test.get('/invoices/invoice_missing', { headers: { 'x-request-id': 'log-check-2' } }), 404);
    const [line] = await linesFor(service, 'log-check-2');
    expect(line).toMatchObject({ level: 30, req: { id: 'log-check-2', method: 'GET' }, res: { statusCode: 404 } });
  });

  it('counts requests by route template and status in /metrics', async () => {
    const api = new Api(null, service.server.baseUrl);
    const count = async () => {
      const text = (await api.get('/metrics')).text;
      const match = /http_requests_total\{method="POST",route="\/invoices\/:id",status="404"\} (\d+)/.exec(text);
      return match ? Number(match[1]) : 0;
    };
    const before = await count();
    expectError(await test.post('/invoices/invoice_a', {}), 404);
    expectError(await test.post('/invoices/invoice_b', {}), 404);
    expect(await count()).toBe(before + 2);
  });
});
