import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { linesWith } from '../../support/server';

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

/** Secrets sent in a URL or as a field name (decisions §22): never in the log, and the request still logged. */
describe('request log without secrets', () => {
  let service: IsolatedService;
  let test: Api;

  beforeAll(async () => {
    service = await startIsolatedService({ LOG_LEVEL: 'info' });
    ({ test } = await service.createOrg('Secretive org'));
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('logs a refund claim request with its token replaced, on the page, the claim, a refused claim and a path under it', async () => {
    const invoice = expectSuccess(await test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '20' }] }), 201).id as string;
    expectSuccess(await test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price: '20', status: 'COMPLETED' }), 201);
    const refund = expectSuccess(await test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    const path = new URL(refund.claim_url as string, 'http://service.invalid').pathname;
    const token = path.slice('/refund_claims/'.length);
    expect(token).toMatch(/^rc_[A-Za-z0-9_-]{32}$/);
    const payer = new Api(null, service.server.baseUrl);

    expect((await payer.get(`${path}?lang=de`, { headers: { 'x-request-id': 'claim-page' } })).status).toBe(200);
    expectError(await payer.post(path, { provider_id: 'prov_nowhere' }, { headers: { 'x-request-id': 'claim-refused' } }), 400);
    expectError(await payer.get(`${path}/more`, { headers: { 'x-request-id': 'claim-unrouted' } }), 404);
    expect((await payer.get('/refund_claims/rc_not_a_real_token_at_all', { headers: { 'x-request-id': 'claim-unknown' } })).status).toBe(404);

    expect(await linesFor(service, 'claim-page')).toEqual([
      expect.objectContaining({ req: { id: 'claim-page', method: 'GET', url: '/refund_claims/[redacted]?lang=de' }, res: { statusCode: 200 } }),
    ]);
    expect(await linesFor(service, 'claim-refused')).toEqual([
      expect.objectContaining({ req: { id: 'claim-refused', method: 'POST', url: '/refund_claims/[redacted]' }, res: { statusCode: 400 } }),
    ]);
    expect(await linesFor(service, 'claim-unrouted')).toEqual([
      expect.objectContaining({ req: { id: 'claim-unrouted', method: 'GET', url: '/refund_claims/[redacted]/more' }, res: { statusCode: 404 } }),
    ]);
    expect(await linesFor(service, 'claim-unknown')).toHaveLength(1);
    // The error lines of the refused and unrouted requests (with their support ids) are there too, without the token.
    expect(linesWith(service.server, '"request_id":"claim-refused"')).toHaveLength(1);
    expect(linesWith(service.server, '"request_id":"claim-unrouted"')).toHaveLength(1);
    expect(service.server.output()).not.toContain(token);
    expect(service.server.output()).not.toContain('rc_not_a_real_token_at_all');
    // Metrics count routes by template, never the path.
    const metrics = (await payer.get('/metrics')).text;
    expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/refund_claims\/:token",status="200"\} [1-9]/);
    expect(metrics).not.toContain(token);
  });

  it('never repeats a field name that looks like a key or a recovery phrase, in the answer or the log', async () => {
    const xprv = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
    const wif = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn';
    const hex = 'e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35';
    const phrase = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const secrets = [xprv, wif, hex, phrase];
    const secretParts = secrets.map((s) => s.slice(4, 24));

    for (const [i, secret] of secrets.entries()) {
      const res = await test.post(
        '/invoices/create',
        { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }], [secret]: 'x', customer_emial: 'a@example.com' },
        { headers: { 'x-request-id': `secret-field-${i}` } },
      );
      const body = expectError(res, 400, { code: 'validation_failed' });
      expect(Object.keys(body.validator).sort()).toEqual(['<redacted field>', 'customer_emial']);
      expect(body.validator['<redacted field>']).toMatch(/^is not a known field \(its name looks like a private key, recovery phrase or token/);
      expect(body.error).toContain('<redacted field> is not a known field');
      expect(body.error).toContain('customer_emial is not a known field');
      expect(await linesFor(service, `secret-field-${i}`)).toEqual([expect.objectContaining({ res: { statusCode: 400 } })]);
    }
    // Nested, and as the text field of a file upload.
    const nested = await test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1', [hex]: 1 }] });
    expect(expectError(nested, 400).validator).toEqual({ 'items.0.<redacted field>': expect.stringMatching(/^is not a known field/) });
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    form.append(phrase, 'x');
    const upload = await test.request('POST', '/files/upload', { rawBody: form, headers: { 'x-request-id': 'secret-upload' } });
    expect(Object.keys(expectError(upload, 400).validator)).toEqual(['<redacted field>']);
    expect(await linesFor(service, 'secret-upload')).toEqual([expect.objectContaining({ res: { statusCode: 400 } })]);

    // The error lines are there (one per refused request, with its support id), naming the field redacted.
    const errorsLogged = linesWith(service.server, '"code":"validation_failed"').filter((l) => l.includes('<redacted field>'));
    expect(errorsLogged.length).toBeGreaterThanOrEqual(secrets.length + 2);
    const output = service.server.output();
    for (const part of secretParts) expect(output).not.toContain(part);
    for (const res of [nested, upload]) for (const part of secretParts) expect(res.text).not.toContain(part);
  });
});
