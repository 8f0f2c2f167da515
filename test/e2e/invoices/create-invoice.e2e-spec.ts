import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { Api } from '../../support/api';
import { convert, createInvoice, D, intent, r30, readInvoice } from './invoice-helpers';

describe('POST /invoices/create', () => {
  it('requires an API key', async () => {
    expectError(await anonymous().post('/invoices/create', { items: [intent('1')] }), 401, { code: 'missing_api_key' });
    expectError(await new Api('sk_test_unknownunknownunknownunknown12').post('/invoices/create', { items: [intent('1')] }), 401);
  });

  it('refuses a read-only key with 403', async () => {
    const org = await createOrg();
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await readOnly.post('/invoices/create', { items: [intent('1')] }), 403, { code: 'read_only_key' });
  });

  it('creates a PENDING invoice with 201 and an invoice_ id, priced in the shared item currency', async () => {
    const org = await createOrg();
    const res = await org.test.post('/invoices/create', {
      items: [intent('10.5', 'EUR'), intent('2', 'EUR')],
      customer_email: 'Jane@Example.com',
      metadata: { order_id: '1234' },
      redirect_url: 'https://shop.example.com/thanks',
    });
    const { id } = expectSuccess(res, 201);
    expect(res.body.data).toEqual({ id });
    expect(id).toMatch(/^invoice_[0-9a-f-]{36}$/);
    const invoice = await readInvoice(org.test, id, { expand: ['items', 'calculations'] });
    expect(invoice).toMatchObject({
      id,
      organization_id: org.id,
      status: 'PENDING',
      substatus: null,
      currency: 'EUR',
      price: r30('12.5'),
      price_usd: r30(convert('10.5', 'EUR', 'USD').add(convert('2', 'EUR', 'USD'))),
      customer_email: 'Jane@Example.com',
      metadata: { order_id: '1234' },
      redirect_url: 'https://shop.example.com/thanks',
    });
    expect(invoice.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(invoice.items).toHaveLength(2);
    for (const item of invoice.items) {
      expect(item).toMatchObject({
        organization_id: org.id,
        invoice_id: id,
        type: 'PAYMENT_INTENT',
        currency: 'EUR',
        product_id: null,
        billing_schema_id: null,
        quantity: 1,
        status: 'INCLUDED',
        exclude_reason: null,
      });
      expect(item.id).toMatch(/^invoice_item_/);
      expect(item.payment_intent_id).toMatch(/^pi_/);
    }
    expect(invoice.items[0].payment_intent_id).not.toBe(invoice.items[1].payment_intent_id);
    expect(invoice.items.map((i: any) => i.price)).toEqual([r30('10.5'), r30('2')]);
    expect(invoice.calculations.map((c: any) => [c.calculation_type, c.idx, c.invoice_item_id])).toEqual([
      ['PAYMENT_INTENT', 0, invoice.items[0].id],
      ['PAYMENT_INTENT', 0, invoice.items[1].id],
      ['TOTAL', 0, null],
      ['TOTAL_USD', 0, null],
    ]);
    expect(invoice.calculations[0].details).toEqual({
      payment_intent_id: invoice.items[0].payment_intent_id,
      currency: 'EUR',
      price: r30('10.5'),
      quantity: 1,
    });
    expect(invoice.calculations[2]).toMatchObject({ currency: 'EUR', initial_price: r30(0), price: r30('12.5'), price_delta: r30('12.5'), details: [] });
    expect(invoice.calculations[3]).toMatchObject({ currency: 'USD', price: invoice.price_usd });
  });

  it('issues an invoice of 0 as COMPLETED, with its events: nothing could pay it', async () => {
    const org = await createOrg();
    const { id } = expectSuccess(await org.test.post('/invoices/create', { items: [intent('0'), intent('0', 'EUR')], currency: 'USD' }), 201);
    expect(await readInvoice(org.test, id)).toMatchObject({ id, status: 'COMPLETED', substatus: null, price: r30('0'), price_usd: r30('0') });
    const events = (expectSuccess(await org.test.post('/events', { limit: 20 })).items as Array<{ type: string; data: { object: { id: string } } }>)
      .filter((e) => e.data.object.id === id)
      .map((e) => e.type)
      .sort();
    expect(events).toEqual(['invoice.completed', 'invoice.created', 'invoice.updated']);
    // An invoice with something to pay stays PENDING.
    const due = expectSuccess(await org.test.post('/invoices/create', { items: [intent('0'), intent('0.01')] }), 201).id;
    expect((await readInvoice(org.test, due)).status).toBe('PENDING');
  });

  it('converts mixed currencies into the requested one with CURRENCY_CHANGE steps', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR'), intent('0.5', 'ETHEREUM')], currency: 'USD' });
    const invoice = await readInvoice(org.test, id, { expand: ['calculations'] });
    const eur = convert('100', 'EUR', 'USD');
    const eth = convert('0.5', 'ETHEREUM', 'USD');
    expect(invoice.currency).toBe('USD');
    expect(invoice.price).toBe(r30(eur.add(eth)));
    expect(invoice.calculations.map((c: any) => [c.calculation_type, c.idx, c.currency])).toEqual([
      ['PAYMENT_INTENT', 0, 'EUR'],
      ['CURRENCY_CHANGE', 1, 'USD'],
      ['PAYMENT_INTENT', 0, 'ETHEREUM'],
      ['CURRENCY_CHANGE', 1, 'USD'],
      ['TOTAL', 0, 'USD'],
      ['TOTAL_USD', 0, 'USD'],
    ]);
    expect(invoice.calculations[1]).toMatchObject({ initial_price: r30(100), price: r30(eur), details: { from: 'EUR', to: 'USD' } });
  });

  it('needs a currency when the items do not share one', async () => {
    const org = await createOrg();
    const body = expectError(await org.test.post('/invoices/create', { items: [intent('1', 'EUR'), intent('1', 'USD')] }), 400, {
      code: 'validation_failed',
      field: 'currency',
    });
    expect(body.validator.currency).toMatch(/required/);
  });

  it('keeps money exact end to end', async () => {
    const org = await createOrg();
    const tiny = '0.000000000000000000000000000001';
    const huge = '123456789012345678.123456789012345678901234567890';
    const id = await createInvoice(org.test, { items: [intent(tiny), intent(huge)] });
    const invoice = await readInvoice(org.test, id, { expand: ['items'] });
    expect(invoice.items.map((i: any) => i.price)).toEqual([r30(tiny), huge]);
    expect(invoice.price).toBe(new D(huge).add(tiny).toFixed(30));
    expect(invoice.price).toBe('123456789012345678.123456789012345678901234567891');
    expect(invoice.price_usd).toBe(invoice.price);
  });

  it('accepts a JSON number as an intent price without going through a float', async () => {
    const org = await createOrg();
    const res = await org.test.request('POST', '/invoices/create', {
      rawBody: '{"items":[{"type":"PAYMENT_INTENT","currency":"USD","price":0.100000000000000000000000000001}]}',
      headers: { 'content-type': 'application/json' },
    });
    const { id } = expectSuccess(res, 201);
    expect((await readInvoice(org.test, id)).price).toBe('0.100000000000000000000000000001');
  });

  it('creates once per Idempotency-Key, replaying the 201 response to a retry', async () => {
    const org = await createOrg();
    const key = `inv-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const body = { items: [intent('7')], customer_email: 'jane@example.com' };
    const first = await org.test.post('/invoices/create', body, { headers: { 'idempotency-key': key } });
    const { id } = expectSuccess(first, 201);
    const again = await org.test.post('/invoices/create', body, { headers: { 'idempotency-key': key } });
    expect(expectSuccess(again, 201)).toEqual({ id });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await org.test.post('/invoices/create', { items: [intent('8')] }, { headers: { 'idempotency-key': key } }), 400, { field: 'Idempotency-Key' });
    expect(expectSuccess(await org.test.post('/invoices/list', {})).total).toBe(1);
  });

  it('accepts up to 100 items and refuses 101', async () => {
    const org = await createOrg();
    const hundred = Array.from({ length: 100 }, (_, i) => intent(`${i + 1}`));
    const id = await createInvoice(org.test, { items: hundred });
    const invoice = await readInvoice(org.test, id, { expand: ['items', 'calculations'] });
    expect(invoice.items).toHaveLength(100);
    expect(invoice.items.map((i: any) => i.price)).toEqual(hundred.map((i) => r30(i.price)));
    expect(invoice.calculations).toHaveLength(102);
    expect(invoice.price).toBe(r30(5050));
    expectError(await org.test.post('/invoices/create', { items: [...hundred, intent('1')] }), 400, { field: 'items' });
  });

  describe('validation', () => {
    const cases: Array<[string, unknown, string]> = [
      ['no items', {}, 'items'],
      ['items not an array', { items: 'x' }, 'items'],
      ['empty items', { items: [] }, 'items'],
      ['unknown item type', { items: [{ type: 'SUBSCRIPTION' }] }, 'items.0.type'],
      ['intent without price', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD' }] }, 'items.0.price'],
      ['intent with negative price', { items: [intent('-1')] }, 'items.0.price'],
      ['intent with exponent price', { items: [intent('1e5')] }, 'items.0.price'],
      ['intent with 31 fractional digits', { items: [intent('0.0000000000000000000000000000001')] }, 'items.0.price'],
      ['intent with a word for price', { items: [intent('ten')] }, 'items.0.price'],
      ['intent without currency', { items: [{ type: 'PAYMENT_INTENT', price: '1' }] }, 'items.0.currency'],
      ['intent with unknown currency', { items: [intent('1', 'DOLLARS')] }, 'items.0.currency'],
      ['product without product_id', { items: [{ type: 'PRODUCT', billing_schema_id: 's', quantity: 1 }] }, 'items.0.product_id'],
      ['product without billing_schema_id', { items: [{ type: 'PRODUCT', product_id: 'p', quantity: 1 }] }, 'items.0.billing_schema_id'],
      ['product without quantity', { items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's' }] }, 'items.0.quantity'],
      ['product with quantity 0', { items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's', quantity: 0 }] }, 'items.0.quantity'],
      ['product with fractional quantity', { items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's', quantity: 1.5 }] }, 'items.0.quantity'],
      [
        'product with quantity over 1,000,000',
        { items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's', quantity: 1_000_001 }] },
        'items.0.quantity',
      ],
      ['second item bad', { items: [intent('1'), intent('x')] }, 'items.1.price'],
      ['bad email', { items: [intent('1')], customer_email: 'not-an-email' }, 'customer_email'],
      ['email not a string', { items: [intent('1')], customer_email: 42 }, 'customer_email'],
      ['unknown currency', { items: [intent('1')], currency: 'XYZ' }, 'currency'],
      ['metadata not a map', { items: [intent('1')], metadata: ['a'] }, 'metadata'],
      ['metadata with a number value', { items: [intent('1')], metadata: { a: 1 } }, 'metadata'],
      ['redirect_url not a URL', { items: [intent('1')], redirect_url: 'not a url' }, 'redirect_url'],
      ['redirect_url not http(s)', { items: [intent('1')], redirect_url: 'javascript:alert(1)' }, 'redirect_url'],
      ['redirect_url ftp', { items: [intent('1')], redirect_url: 'ftp://example.com/x' }, 'redirect_url'],
    ];

    it.each(cases)('%s -> 400 on %s', async (_name, body, field) => {
      const org = await createOrg();
      expectError(await org.test.post('/invoices/create', body), 400, { code: 'validation_failed', field: field });
    });

    it('says a field that was left out is required, and a wrong one what it must be', async () => {
      const org = await createOrg();
      expect(expectError(await org.test.post('/invoices/create', {}), 400).validator).toEqual({ items: 'is required' });
      const missing = expectError(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', price: '1' }] }), 400);
      expect(missing.validator).toEqual({ 'items.0.currency': 'is required' });
      const wrong = expectError(await org.test.post('/invoices/create', { items: [intent('1')], customer_email: 42 }), 400);
      expect(wrong.validator.customer_email).not.toBe('is required');
    });

    it('writes nothing when refused', async () => {
      const org = await createOrg();
      await org.test.post('/invoices/create', { items: [intent('1', 'EUR'), intent('1', 'USD')] });
      expect(expectSuccess(await org.test.post('/invoices/list', {})).total).toBe(0);
    });
  });
});
