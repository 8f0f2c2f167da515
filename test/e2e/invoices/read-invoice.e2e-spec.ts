import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

const PLAIN_FIELDS = [
  'checkout_url',
  'created_at',
  'currency',
  'customer_email',
  'expires_at',
  'id',
  'metadata',
  'monitoring_until',
  'organization_id',
  'price',
  'price_usd',
  'redirect_url',
  'refunded_usd',
  'status',
  'substatus',
  'updated_at',
];

describe('POST /invoices/{id}', () => {
  it('answers 401 for an unknown or malformed key', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await new Api('sk_test_unknownunknownunknownunknown12').post(`/invoices/${id}`, {}), 401);
    expectError(await new Api('not-a-key').post(`/invoices/${id}`, {}), 401);
  });

  it('returns the plain read form', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('12.5')], metadata: { order: '7' }, redirect_url: 'http://localhost:8080/back' });
    const data = await readInvoice(org.test, id);
    expect(Object.keys(data).sort()).toEqual(PLAIN_FIELDS);
    expect(data).toMatchObject({
      id,
      organization_id: org.id,
      status: 'PENDING',
      substatus: null,
      currency: 'USD',
      price: r30('12.5'),
      price_usd: r30('12.5'),
      customer_email: 'jane@example.com',
      metadata: { order: '7' },
      redirect_url: 'http://localhost:8080/back',
    });
    expect(data.updated_at).toBe(data.created_at);
    // the hosted checkout page, by its path while PUBLIC_BASE_URL is unset
    expect(data.checkout_url).toBe(`/checkout/${id}`);
  });

  it('accepts an empty array, an empty object or no body, and refuses a non-empty array', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const fromObject = await readInvoice(org.test, id, {});
    expect(await readInvoice(org.test, id, [])).toEqual(fromObject);
    expect(expectSuccess(await org.test.request('POST', `/invoices/${id}`))).toEqual(fromObject);
    expectError(await org.test.post(`/invoices/${id}`, ['items']), 400);
  });

  it('lets a read-only key read', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expect((await readInvoice(readOnly, id)).id).toBe(id);
  });

  it('answers 404 for another organization, the other mode, an unknown and a malformed id', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const testId = await createInvoice(org.test);
    const liveId = await createInvoice(org.live);
    expectError(await other.test.post(`/invoices/${testId}`, {}), 404, { code: 'invoice_not_found' });
    expectError(await org.live.post(`/invoices/${testId}`, {}), 404, { code: 'invoice_not_found' });
    expectError(await org.test.post(`/invoices/${liveId}`, {}), 404, { code: 'invoice_not_found' });
    expectError(await org.test.post('/invoices/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', {}), 404);
    expectError(await org.test.post('/invoices/%27%3B%20drop%20table', {}), 404);
    expect((await readInvoice(org.live, liveId)).id).toBe(liveId);
  });

  describe('expansions', () => {
    it('items: each item of the invoice in order', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test, { items: [intent('1'), intent('2', 'EUR')], currency: 'USD' });
      const data = await readInvoice(org.test, id, { expand: ['items'] });
      expect(data.items.map((i: any) => [i.type, i.currency, i.price])).toEqual([
        ['PAYMENT_INTENT', 'USD', r30(1)],
        ['PAYMENT_INTENT', 'EUR', r30(2)],
      ]);
      expect(Object.keys(data.items[0]).sort()).toEqual([
        'billing_schema_id',
        'created_at',
        'currency',
        'exclude_reason',
        'id',
        'invoice_id',
        'organization_id',
        'payment_intent_id',
        'price',
        'product_id',
        'quantity',
        'status',
        'type',
        'updated_at',
      ]);
      expect(data).not.toHaveProperty('calculations');
    });

    it('items.payment_intent: the intent of each PAYMENT_INTENT item', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test, { items: [intent('3.25', 'GBP')] });
      const data = await readInvoice(org.test, id, { expand: ['items.payment_intent'] });
      expect(data.items[0].payment_intent).toEqual({ id: data.items[0].payment_intent_id, currency: 'GBP', price: r30('3.25') });
    });

    it('items.product and items.billing_schema: null on payment intents', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test);
      const data = await readInvoice(org.test, id, { expand: ['items.product', 'items.billing_schema'] });
      expect(data.items[0]).toMatchObject({ product: null, billing_schema: null });
    });

    it('calculations: per item by idx, then the totals', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test, { items: [intent('2', 'EUR'), intent('1')], currency: 'USD' });
      const data = await readInvoice(org.test, id, { expand: ['calculations'] });
      expect(data.calculations.map((c: any) => c.calculation_type)).toEqual(['PAYMENT_INTENT', 'CURRENCY_CHANGE', 'PAYMENT_INTENT', 'TOTAL', 'TOTAL_USD']);
      expect(data.calculations[0].id).toMatch(/^invoice_calc_/);
      expect(data.calculations[1]).toMatchObject({
        idx: 1,
        currency: 'USD',
        initial_price: r30(2),
        price: r30(convert(2, 'EUR', 'USD')),
        details: { from: 'EUR', to: 'USD', from_rate_usd: expect.any(String), to_rate_usd: expect.any(String) },
      });
      expect(data.calculations[3]).toMatchObject({ invoice_item_id: null, price: data.price, initial_price: r30(0), price_delta: data.price, details: [] });
      expect(data).not.toHaveProperty('items');
    });

    it('organization: name and image_url', async () => {
      const org = await createOrg('Expand Org');
      const id = await createInvoice(org.test);
      const data = await readInvoice(org.test, id, { expand: ['organization'] });
      expect(data.organization).toEqual({ name: 'Expand Org', image_url: null });
    });

    it('payments and payments.provider: the payments of the invoice (none yet)', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test);
      expect((await readInvoice(org.test, id, { expand: ['payments'] })).payments).toEqual([]);
      expect((await readInvoice(org.test, id, { expand: ['payments.provider'] })).payments).toEqual([]);
    });

    it('currency: the kind of the invoice currency', async () => {
      const org = await createOrg();
      const usd = await createInvoice(org.test);
      const btc = await createInvoice(org.test, { currency: 'BITCOIN' });
      expect((await readInvoice(org.test, usd, { expand: ['currency'] })).currency_details).toEqual({ code: 'USD', kind: 'FIAT' });
      expect((await readInvoice(org.test, btc, { expand: ['currency'] })).currency_details).toEqual({ code: 'BITCOIN', kind: 'CRYPTO' });
    });

    it('all together', async () => {
      const org = await createOrg();
      const id = await createInvoice(org.test);
      const data = await readInvoice(org.test, id, { expand: ['items', 'calculations', 'organization', 'payments', 'currency'] });
      expect(Object.keys(data).sort()).toEqual([...PLAIN_FIELDS, 'calculations', 'currency_details', 'items', 'organization', 'payments'].sort());
    });
  });

  it('adds a summary in the asked currency at current rates, leaving the invoice unchanged', async () => {
    const org = await createOrg();
    const id = await createInvoice(org.test, { items: [intent('100', 'EUR'), intent('5')], currency: 'USD' });
    const data = await readInvoice(org.test, id, { currency: 'GBP' });
    const gbp = convert(100, 'EUR', 'GBP').add(convert(5, 'USD', 'GBP'));
    expect(data.summary).toEqual({
      currency: 'GBP',
      price: r30(gbp),
      price_usd: data.price_usd,
      exchange_rate_timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(data.currency).toBe('USD');
    expect((await readInvoice(org.test, id)).currency).toBe('USD');
  });

  it.each([
    ['unknown expansion', { expand: ['items', 'secrets'] }, 'expand'],
    ['expand not an array', { expand: 'items' }, 'expand'],
    ['unknown currency', { currency: 'XYZ' }, 'currency'],
  ])('%s -> 400 on %s', async (_name, body, field) => {
    const org = await createOrg();
    const id = await createInvoice(org.test);
    expectError(await org.test.post(`/invoices/${id}`, body), 400, { code: 'validation_failed', field });
  });
});
