import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { MAKERS } from '../../support/makers';
import { productBody } from '../products/product-bodies';

/** Inputs fuzzing once turned into 500s: each is now a 400 naming what is at fault (or a plain answer). */
describe('hostile input', () => {
  it('a NUL character in a path id is a 400 at that parameter, on every kind of id', async () => {
    const org = await createOrg();
    for (const path of ['/products/%00', '/files/%00/content', '/invoices/%00/short_state', '/providers/a%00b']) {
      expectError(await org.test.get(path), 400, { code: 'validation_failed', field: path.startsWith('/providers') ? 'invoice_id' : 'id' });
    }
    expectError(await org.test.delete('/files/%00'), 400, { field: 'id' });
    expectError(await org.test.post('/payments/x%00', {}), 400, { field: 'id' });
    expectError(await anonymous().get('/providers/%00'), 400, { field: 'invoice_id' });
  });

  it('a NUL character in a body string or key, or a query value, is a 400 at its field path', async () => {
    const org = await createOrg();
    expectError(await org.test.post('/products', productBody({ name: 'Pro\u0000plan' })), 400, { field: 'name' });
    expectError(
      await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }], metadata: { 'order\u0000': '1' } }),
      400,
      { field: 'metadata.order\u0000' },
    );
    expectError(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1', name: 'a\u0000' }] }), 400, {
      field: 'items.0.name',
    });
    expectError(await org.test.get('/files?search=a%00b'), 400, { field: 'search' });
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(0);
  });

  it('a lone UTF-16 surrogate (an unpaired \\ud800 escape) in a body string or key is a 400 at its field path; a pair is an emoji', async () => {
    const org = await createOrg();
    const item = { type: 'PAYMENT_INTENT', currency: 'USD', price: '1' };
    for (const [metadata, field] of [
      [{ k: 'a\ud800' }, 'metadata.k'],
      [{ '\udc00': 'x' }, 'metadata.\udc00'],
    ] as const) {
      const refused = await org.test.post('/invoices/create', { items: [item], metadata });
      expectError(refused, 400, { code: 'validation_failed', field });
      expect(Object.values(refused.body.validator).join(' ')).toContain('lone surrogate');
    }
    expectError(await org.test.post('/products', productBody({ metadata: { plan: '\udbff' } })), 400, { field: 'metadata.plan' });
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(0);
    // A surrogate pair is one character, stored and answered as sent.
    const created = expectSuccess(await org.test.post('/invoices/create', { items: [item], metadata: { k: 'smile \ud83d\ude00' } }), 201);
    expect(expectSuccess(await org.test.post(`/invoices/${created.id}`, {})).metadata).toEqual({ k: 'smile \ud83d\ude00' });
  });

  it('a path that is not valid percent-encoded UTF-8 is a 400 at the path', async () => {
    const org = await createOrg();
    expectError(await org.test.get('/products/%E0%A4%A'), 400, { code: 'malformed_path', field: 'path' });
    expectError(await anonymous().get('/assets/providers/%FF'), 400, { code: 'malformed_path', field: 'path' });
  });

  it('a body nested thousands deep is a 400, not a stack overflow', async () => {
    const org = await createOrg();
    const invoice = await MAKERS.invoice(org);
    for (const raw of ['['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)]) {
      const res = await org.test.request('PUT', `/invoices/${invoice}`, { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, { code: 'json_too_deep', field: 'body' });
    }
    // 64 levels are still fine for the parser (the DTO then judges the content)
    const ok = await org.test.request('POST', '/products', {
      rawBody: JSON.stringify({ ...productBody(), metadata: { a: 'b' } }),
      headers: { 'content-type': 'application/json' },
    });
    expectSuccess(ok);
  });

  it('a body that is not an object where one is expected names the body, on invoices and payments alike', async () => {
    const org = await createOrg();
    const invoice = await MAKERS.invoice(org);
    for (const [path, raw] of [
      [`/invoices/${invoice}`, '[1]'],
      [`/invoices/${invoice}`, '5'],
      ['/payments', '"text"'],
      ['/payments', '[{}]'],
    ]) {
      const res = await org.test.request('POST', path, { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, { code: 'validation_failed', field: 'body' });
    }
  });

  it('a null filter bound means no bound on invoice and payment lists', async () => {
    const org = await createOrg();
    await MAKERS.payment(org);
    const nulls = { price_usd_from: null, price_usd_to: null, created_at_from: null, created_at_to: null };
    expect(expectSuccess(await org.test.post('/payments', nulls)).total).toBe(1);
    expect(expectSuccess(await org.test.post('/invoices/list', nulls)).total).toBe(1);
  });

  it('an array where a list of objects is expected is a 400 at that list (products, invoices, quotes)', async () => {
    const org = await createOrg();
    const body = productBody();
    const schema = (body.schemas as Record<string, unknown>[])[0];
    expectError(await org.test.post('/products', { ...body, schemas: [{ ...schema, configurations: [[[]]] }] }), 400, { field: 'schemas.0.configurations' });
    expectError(await org.test.post('/products', { ...body, schemas: [[schema]] }), 400, { field: 'schemas' });
    expectError(await org.test.post('/invoices/create', { items: [[{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }]] }), 400, { field: 'items' });
    expectError(await org.test.post('/pay/quote', { currency: 'USD', items: [[]] }), 400, { field: 'items' });
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(0);
  });
});
