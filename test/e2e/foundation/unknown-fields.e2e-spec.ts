import { admin, anonymous, Api, ApiResponse, baseUrl } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { kindOf, MAKERS, withRealIds } from '../../support/makers';
import { exampleBody, fetchOpenApi, OpenApiDocument, Operation, operations, resolve } from '../../support/openapi';
import { rawRequest } from '../../support/raw-http';
import { ADMIN_TOKEN } from '../../support/server';
import { productBody } from '../products/product-bodies';
import { XPUB_0 } from '../rails/rails-helpers';

/**
 * Unknown body fields are refused (decisions §1): 400 `validation_failed`, `validator` naming each one
 * by its path, and nothing done. Free maps (metadata) still take any keys; query strings still ignore
 * parameters a route does not read.
 */
const UNKNOWN = 'is not a known field';
const RESERVED = 'is a reserved name, not accepted as a field or a key';
const intent = (price = '10') => ({ type: 'PAYMENT_INTENT', currency: 'USD', price });

function expectRefused(res: ApiResponse, fields: Record<string, string>): Record<string, any> {
  const body = expectError(res, 400, { code: 'validation_failed' });
  expect(body.validator).toEqual(expect.objectContaining(fields));
  for (const [field, message] of Object.entries(fields)) expect(body.error).toContain(`${field} ${message}`);
  return body;
}

const totalOf = async (res: Promise<ApiResponse>) => expectSuccess<{ total: number }>(await res).total;

describe('unknown body fields', () => {
  let org: TestOrg;

  beforeEach(async () => {
    org = await createOrg();
  });

  it('a misspelt field on invoice creation is a 400 naming it, and no invoice is made', async () => {
    const res = await org.test.post('/invoices/create', { items: [intent()], customer_emial: 'jane@example.com' });
    const body = expectRefused(res, { customer_emial: UNKNOWN });
    expect(body.validator).toEqual({ customer_emial: UNKNOWN });
    expect(await totalOf(org.test.post('/invoices/list', {}))).toBe(0);
    expect(await totalOf(org.test.post('/events', { type: ['invoice.created'] }))).toBe(0);

    // Spelt right, the same body keeps the email.
    const { id } = expectSuccess(await org.test.post('/invoices/create', { items: [intent()], customer_email: 'jane@example.com' }), 201);
    expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).customer_email).toBe('jane@example.com');
  });

  it('names every unknown field, at every depth, by its path', async () => {
    const res = await org.test.post('/invoices/create', {
      items: [
        { ...intent(), pricee: '12' },
        { ...intent(), extra: { a: 1 } },
      ],
      foo: 1,
      bar: null,
    });
    expect(expectRefused(res, {}).validator).toEqual({ 'items.0.pricee': UNKNOWN, 'items.1.extra': UNKNOWN, foo: UNKNOWN, bar: UNKNOWN });
    expect(await totalOf(org.test.post('/invoices/list', {}))).toBe(0);
  });

  it('refuses an item field of the other item type (it would be dropped unread), on invoices and on quotes', async () => {
    expectRefused(await org.test.post('/invoices/create', { items: [{ ...intent(), quantity: 3 }] }), {
      'items.0.quantity': 'is not a field of PAYMENT_INTENT items',
    });
    expectRefused(await org.test.post('/invoices/create', { items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's', quantity: 1, price: '5' }] }), {
      'items.0.price': 'is not a field of PRODUCT items',
    });
    expectRefused(await org.test.post('/pay/quote', { currency: 'USD', items: [{ ...intent(), product_id: 'product_x' }] }), {
      'items.0.product_id': 'is not a field of PAYMENT_INTENT items',
    });
    expect(await totalOf(org.test.post('/invoices/list', {}))).toBe(0);
  });

  it('a misspelt filter on /invoices/list is refused instead of listing everything', async () => {
    expectSuccess(await org.test.post('/invoices/create', { items: [intent()] }), 201);
    expectRefused(await org.test.post('/invoices/list', { statuses: ['COMPLETED'] }), { statuses: UNKNOWN });
    expect(await totalOf(org.test.post('/invoices/list', { status: ['COMPLETED'] }))).toBe(0);
    expect(await totalOf(org.test.post('/invoices/list', { status: ['PENDING'] }))).toBe(1);
  });

  it('payer calls without a key refuse unknown fields too, and change nothing', async () => {
    const { id } = expectSuccess(await org.test.post('/invoices/create', { items: [intent()] }), 201);
    const payer = anonymous();
    expectRefused(await payer.put(`/invoices/${id}`, { currency: 'EUR', curency: 'EUR' }), { curency: UNKNOWN });
    expectRefused(await payer.post(`/invoices/${id}`, { expand: ['items'], expnad: ['payments'] }), { expnad: UNKNOWN });
    const { id: paymentId } = expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: '1' }), 201);
    expectRefused(await payer.post(`/payments/${paymentId}`, { expand: ['provider'], with: 'provider' }), { with: UNKNOWN });
    // The invoice is as it was; the bodies the interface allows still pass.
    expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).currency).toBe('USD');
    expectSuccess(await payer.post(`/invoices/${id}`, []));
    expectSuccess(await payer.post(`/invoices/${id}`, { expand: ['items'] }));
    expectSuccess(await payer.post(`/payments/${paymentId}`, []));
  });

  it('product creation names a nested unknown field by its path, and makes no product', async () => {
    const body = productBody();
    const metric = (body.schemas[0].configurations as Array<{ metric: Record<string, unknown> }>)[0].metric;
    metric.metric_kye = 'api_calls';
    expectRefused(await org.test.post('/products', { ...body, is_active: true }), {
      'schemas.0.configurations.0.metric.metric_kye': UNKNOWN,
      is_active: UNKNOWN,
    });
    expect(expectSuccess(await org.test.get('/products'))).toEqual([]);
  });

  it('a quote refuses an unknown field of its product', async () => {
    expectRefused(await org.test.post('/pay/quote', { currency: 'USD', product: { id: 'product_x', quantity: 1, billing_schema_id: 'schema_x', qty: 2 } }), {
      'product.qty': UNKNOWN,
    });
  });

  it('webhook endpoint creation refuses an unknown field and registers nothing', async () => {
    expectRefused(await org.test.post('/webhooks', { url: 'https://merchant.example.com/hooks', event_types: ['*'], secret: 'whsec_mine' }), {
      secret: UNKNOWN,
    });
    expect(await totalOf(org.test.get('/webhooks'))).toBe(0);
  });

  it('wallet registration refuses an unknown field and registers nothing', async () => {
    expectRefused(await org.test.post('/wallets', { chain_family: 'evm', xpub: XPUB_0, xpub_key: XPUB_0 }), { xpub_key: UNKNOWN });
    expect(await totalOf(org.test.get('/wallets'))).toBe(0);
  });

  it('a simulated payment with a misspelt amount field is refused and records nothing', async () => {
    const { id } = expectSuccess(await org.test.post('/invoices/create', { items: [intent()] }), 201);
    const body = expectRefused(await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', amount: '10' }), {
      amount: UNKNOWN,
    });
    expect(Object.keys(body.validator)).toContain('price');
    expect(await totalOf(org.test.post('/payments', {}))).toBe(0);
  });

  it('operator routes refuse unknown fields', async () => {
    expectRefused(await admin().post('/admin/organizations', { name: 'Acme', plan: 'gold' }), { plan: UNKNOWN });
    expectRefused(await admin().post(`/admin/organizations/${org.id}/keys`, { mode: 'test', readonly: true }), { readonly: UNKNOWN });
  });

  it('a file upload refuses an unknown text field and stores nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    form.append('name', 'hello.txt');
    form.append('folder', 'docs');
    expectRefused(await org.test.request('POST', '/files/upload', { rawBody: form }), { folder: UNKNOWN });
    expect(await totalOf(org.test.get('/files'))).toBe(0);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('a file upload refuses the reserved text field %s, naming it, and stores nothing', async (field) => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    form.append(field, 'x');
    const body = expectRefused(await org.test.request('POST', '/files/upload', { rawBody: form }), { [field]: RESERVED });
    expect(Object.keys(body.validator)).toEqual([field]);
    expect(await totalOf(org.test.get('/files'))).toBe(0);
  });

  it('a route without a body refuses a body with fields; {} and no body pass', async () => {
    const endpoint = expectSuccess(await org.test.post('/webhooks', { url: 'https://merchant.example.com/hooks', event_types: ['*'] }), 201);
    expectRefused(await org.test.request('DELETE', `/webhooks/${endpoint.id}`, { body: { force: true } }), { force: UNKNOWN });
    expectSuccess(await org.test.get(`/webhooks/${endpoint.id}`));

    const [event] = expectSuccess(await org.test.post('/events', {})).items as Array<{ id: string }>;
    expectRefused(await org.test.post(`/events/${event.id}`, { expand: ['data'] }), { expand: UNKNOWN });
    expectSuccess(await org.test.post(`/events/${event.id}`, {}));

    const text = JSON.stringify({ verbose: true });
    const debug = await rawRequest(`${baseUrl()}/auth/debug_token`, {
      headers: { authorization: org.testKey, 'content-length': String(Buffer.byteLength(text)) },
      body: text,
    });
    expect(debug.status).toBe(400);
    expect(debug.body.validator).toEqual({ verbose: UNKNOWN });

    expectSuccess(await org.test.request('DELETE', `/webhooks/${endpoint.id}`, { body: {} }));
    expectError(await org.test.get(`/webhooks/${endpoint.id}`), 404);
  });

  it('refuses the keys __proto__, constructor and prototype at every depth, metadata included, naming each and making nothing', async () => {
    // JSON.parse keeps "__proto__" as an ordinary key; it must be named, not silently dropped.
    const text =
      '{"items":[{"type":"PAYMENT_INTENT","currency":"USD","price":"10","__proto__":{"price":"1"}}],"__proto__":{"customer_email":"x@example.com"},"constructor":{"prototype":{}},"prototype":1}';
    const res = await rawRequest(`${baseUrl()}/invoices/create`, {
      method: 'POST',
      headers: { authorization: org.testKey, 'content-length': String(Buffer.byteLength(text)) },
      body: text,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.validator).toEqual({ 'items.0.__proto__': RESERVED, ['__proto__']: RESERVED, constructor: RESERVED, prototype: RESERVED });
    expect(Object.keys(res.body.validator)).toContain('__proto__');
    expect(await totalOf(org.test.post('/invoices/list', {}))).toBe(0);

    // A free map (metadata) takes any other key, but these would vanish from it unseen.
    const meta = '{"items":[{"type":"PAYMENT_INTENT","currency":"USD","price":"10"}],"metadata":{"__proto__":{"a":"b"}}}';
    const refused = await rawRequest(`${baseUrl()}/invoices/create`, {
      method: 'POST',
      headers: { authorization: org.testKey, 'content-length': String(Buffer.byteLength(meta)) },
      body: meta,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.validator).toEqual({ 'metadata.__proto__': RESERVED });
    expect(await totalOf(org.test.post('/invoices/list', {}))).toBe(0);
  });

  it('metadata still takes any keys (a free map), on invoices and products', async () => {
    const metadata = { customer_emial: 'kept as metadata', 'order.id': '1234', 'Any Key': 'v', statuses: 'x' };
    const { id } = expectSuccess(await org.test.post('/invoices/create', { items: [intent()], metadata }), 201);
    expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).metadata).toEqual(metadata);
    const product = expectSuccess(await org.test.post('/products', productBody({ metadata })));
    expect(expectSuccess(await org.test.get(`/products/${product.id}`)).metadata).toEqual(metadata);
  });

  it('query strings keep ignoring parameters a route does not read', async () => {
    expect(await totalOf(org.test.get('/files?limt=1&_=123'))).toBe(0);
  });
});

/**
 * Every operation of the published document that takes a body (and every POST, PUT, PATCH or DELETE
 * without one) is called with a valid-looking body plus `unknown_field_x`: each must answer 400 naming
 * it. A new route is covered as soon as it is published.
 */
describe('unknown body fields across the published document', () => {
  const FIELD = 'unknown_field_x';
  let doc: OpenApiDocument;

  beforeAll(async () => {
    doc = await fetchOpenApi();
  });

  const jsonSchemaOf = (op: Operation) => op.operation.requestBody?.content?.['application/json']?.schema;

  it('documents every JSON request body as closed, except free maps', () => {
    const bodies = operations(doc).filter((op) => jsonSchemaOf(op));
    expect(bodies.length).toBeGreaterThanOrEqual(20);
    for (const op of bodies) expect([op.method, op.path, resolve(doc, jsonSchemaOf(op)).additionalProperties]).toEqual([op.method, op.path, false]);
    const schemas = doc.components.schemas;
    expect(schemas.CreateInvoiceRequestDto.properties.metadata.additionalProperties).toEqual({ type: 'string' });
    expect(schemas.ProductRequestDto.properties.metadata.additionalProperties).toEqual({ type: 'string' });
    for (const nested of [
      'ProductItemDoc',
      'PaymentIntentItemDoc',
      'SchemaInputDto',
      'ConfigurationInputDto',
      'MetricInputDto',
      'QuoteProductDto',
      'ItemInputDto',
    ]) {
      expect([nested, schemas[nested].additionalProperties]).toEqual([nested, false]);
    }
    const upload = doc.paths['/files/upload'].post.requestBody.content['multipart/form-data'].schema;
    expect(upload.additionalProperties).toBe(false);
  });

  it('answers 400 naming the unknown field on every route that takes a body or changes data', async () => {
    const org = await createOrg();
    const checked: string[] = [];
    const targets = operations(doc).filter((op) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method));
    expect(targets.length).toBeGreaterThanOrEqual(25);
    for (const op of targets) {
      const ids: Record<string, string> = {};
      for (const p of (op.operation.parameters ?? []).filter((x: any) => x.in === 'path')) {
        const kind = kindOf(op.path, p.name);
        // The body is checked before the id is looked up, so an id no maker can make (an unmatched chain transfer) may be made up.
        ids[p.name] = kind === 'organization' ? org.id : MAKERS[kind] ? await MAKERS[kind](org) : `${kind}_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00`;
      }
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]));
      const api = op.path.startsWith('/admin/') ? new Api(null) : org.test;
      const headers = op.path.startsWith('/admin/') ? { 'x-admin-token': ADMIN_TOKEN } : undefined;
      let res: ApiResponse;
      if (op.operation.requestBody?.content?.['multipart/form-data']) {
        const form = new FormData();
        form.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
        form.append(FIELD, '1');
        res = await api.request(op.method, path, { rawBody: form, headers });
      } else {
        const example = (await withRealIds(org, exampleBody(doc, op))) ?? {};
        res = await api.request(op.method, path, { body: { ...example, [FIELD]: 1 }, headers });
      }
      if (res.status !== 400 || res.body?.validator?.[FIELD] !== UNKNOWN) {
        throw new Error(`${op.method} ${op.path}: expected 400 naming ${FIELD}, got ${res.status}: ${res.text.slice(0, 500)}`);
      }
      expectError(res, 400, { code: 'validation_failed', field: FIELD });
      checked.push(`${op.method} ${op.path}`);
    }
    expect(checked).toEqual(
      expect.arrayContaining(['POST /invoices/create', 'POST /invoices/list', 'PUT /invoices/{id}', 'POST /test_helpers/payments', 'DELETE /files/{id}']),
    );
  });
});
