import { request } from 'node:http';
import { Api, anonymous, baseUrl } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { PDF, upload } from '../files/files-helpers';
import { createInvoice } from '../invoices/invoice-helpers';

const MB = 1024 * 1024;

interface EarlyAnswer {
  status: number;
  body: any;
  /** Bytes of the body the client had sent when the answer came (the rest was never sent). */
  bytesSent: number;
}

/**
 * Declares a JSON body of `declared` bytes (a big array of numbers), sends only its first
 * `sendFirst` bytes, and waits for the answer without ever sending the rest. An answer can only come
 * from a service that decided without reading (let alone parsing) the body: one that reads it first
 * waits for bytes that never come, and the test fails with "no answer".
 */
function answerBeforeBody(
  base: string,
  method: string,
  path: string,
  declared: number,
  sendFirst: number,
  headers: Record<string, string> = {},
): Promise<EarlyAnswer> {
  const head = Buffer.from('[' + '1234567890,'.repeat(Math.ceil(sendFirst / 11))).subarray(0, sendFirst);
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { 'content-type': 'application/json', 'content-length': String(declared), ...headers } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(
        new Error(
          `no answer to ${method} ${path} while ${declared - sendFirst} bytes of its body were unsent: the service waits to read the body before deciding`,
        ),
      );
    }, 20_000);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), bytesSent: sendFirst });
      });
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.write(head);
  });
}

/** Sends a whole body without Content-Length (chunked transfer encoding). */
function sendChunked(base: string, method: string, path: string, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { 'content-type': 'application/json' } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000));
    req.end();
  });
}

function expectEnvelope(answer: EarlyAnswer, status: number, code: string) {
  expect({ status: answer.status, code: answer.body.code, envelopeStatus: answer.body.status, data: answer.body.data }).toEqual({
    status,
    code,
    envelopeStatus: status,
    data: {},
  });
  expect(answer.bytesSent).toBeLessThan(MB);
}

describe('requests refused before their body is read', () => {
  it('answers 404 to a 1 MB keyless body on an unknown route before the body is sent', async () => {
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', '/no/such/route', MB, 64 * 1024), 404, 'route_not_found');
    expectEnvelope(await answerBeforeBody(baseUrl(), 'PUT', '/invoices/list/more', MB, 64 * 1024), 404, 'route_not_found');
  });

  it('answers 401 to a 1 MB body on /invoices/list without a key, or with an unknown one, before the body is sent', async () => {
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', '/invoices/list', MB, 64 * 1024), 401, 'missing_api_key');
    expectEnvelope(
      await answerBeforeBody(baseUrl(), 'POST', '/invoices/list', MB, 64 * 1024, { authorization: `sk_test_${'N'.repeat(40)}` }),
      401,
      'invalid_api_key',
    );
  });

  it('answers 413 to a keyless payer body over 8 KB before the body is sent, and to a chunked one once it passes 8 KB', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', `/invoices/${id}`, MB, 1024), 413, 'payload_too_large');
    expectEnvelope(await answerBeforeBody(baseUrl(), 'PUT', `/invoices/${id}`, 9000, 1024), 413, 'payload_too_large');

    // no Content-Length (chunked): the read stops at the cap
    const padded = JSON.stringify({ expand: [], currency: 'USD', pad: 'x'.repeat(9000) });
    const chunked = await sendChunked(baseUrl(), 'POST', `/invoices/${id}`, padded);
    expect({ status: chunked.status, code: chunked.body.code }).toEqual({ status: 413, code: 'payload_too_large' });

    // a payer body within the cap is read as usual, and a keyed one may be much larger
    expect(expectSuccess(await anonymous().post(`/invoices/${id}`, { expand: ['items'] })).id).toBe(id);
    const keyed = await org.test.post(`/invoices/${id}`, { expand: ['items'], pad: 'x'.repeat(100_000) });
    expect(keyed.status).not.toBe(413);
  });

  it("answers 413 to a refund claim's body over 8 KB before the body is sent (the claim routes never take a key)", async () => {
    const token = 'rc_0000000000000000000000000000000000';
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', `/refund_claims/${token}`, 9000, 1024), 413, 'payload_too_large');
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', `/refund_claims/${token}/test_payout`, 9000, 1024), 413, 'payload_too_large');
    // Within the cap: read as usual (an unknown token).
    expectError(
      await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      404,
    );
  });

  it('answers 413 to a body over 8 KB on a keyless route that takes none (pages, their files, health) before the body is sent', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    for (const path of [`/checkout/${id}`, '/checkout/assets/checkout.js', '/health', `/refund_claims/rc_${'0'.repeat(34)}`]) {
      expectEnvelope(await answerBeforeBody(baseUrl(), 'GET', path, 9000, 1024), 413, 'payload_too_large');
    }
  });

  it('answers 401 to a 1 MB body on the operator API without the right X-Admin-Token before the body is sent', async () => {
    expectEnvelope(await answerBeforeBody(baseUrl(), 'POST', '/admin/organizations', MB, 64 * 1024), 401, 'invalid_admin_token');
    expectEnvelope(
      await answerBeforeBody(baseUrl(), 'POST', '/admin/organizations', MB, 64 * 1024, { 'x-admin-token': 'not-the-token-at-all-0000' }),
      401,
      'invalid_admin_token',
    );
  });
});

describe('the operator API without ADMIN_API_TOKEN', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ ADMIN_API_TOKEN: '' });
  });
  afterAll(async () => service?.stop());

  it('answers 404 as any unknown path, before reading a body (a malformed one included)', async () => {
    expectEnvelope(await answerBeforeBody(service.server.baseUrl, 'POST', '/admin/organizations', MB, 64 * 1024), 404, 'route_not_found');
    const malformed = await new Api(null, service.server.baseUrl).request('POST', '/admin/organizations', {
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect([malformed.status, malformed.body.code]).toEqual([404, 'route_not_found']);
  });
});

describe('bodies with a valid key', () => {
  it('still takes a file upload larger than the JSON cap (multipart has its own limit)', async () => {
    const org = await createOrg();
    const big = Buffer.concat([PDF, Buffer.alloc(1536 * 1024, 0x20)]);
    const res = await upload(org.test, big, { filename: 'big.pdf', contentType: 'application/pdf', name: 'big.pdf' });
    expect(expectSuccess(res).id).toMatch(/^file_/);
  });
});

describe('keyless budget before the body', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_MS: '60000' });
  });
  afterAll(async () => service?.stop());

  it('answers 429 to a keyless request over its budget before its body is sent', async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
    const path = '/invoices/invoice_00000000-0000-7000-8000-000000000000';
    const payer = new Api(null, service.server.baseUrl);
    expectError(await payer.post(path, {}), 404);
    expectError(await payer.post(path, {}), 404);
    expectEnvelope(await answerBeforeBody(service.server.baseUrl, 'POST', path, 4000, 10), 429, 'rate_limited');
    // The refund claim routes share that budget, and check it before the body too.
    expectEnvelope(await answerBeforeBody(service.server.baseUrl, 'POST', '/refund_claims/rc_guess', 4000, 10), 429, 'rate_limited');
  });
});
