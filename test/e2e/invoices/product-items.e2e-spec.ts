import type { Api } from '../../support/api';
import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { convert, createInvoice, intent, r30, readInvoice } from './invoice-helpers';

const oneTime = (overrides: Record<string, unknown> = {}) => ({
  name: 'Setup fee',
  description: 'Once',
  currency: 'EUR',
  type: 'ONE_TIME',
  base_price: '49.99',
  configurations: [],
  ...overrides,
});

async function createProduct(api: Api, schemas: unknown[] = [oneTime()]): Promise<{ productId: string; schemaIds: string[] }> {
  const { id } = expectSuccess(await api.post('/products', { name: 'Widget', description: 'A widget', metadata: {}, schemas }));
  const product = expectSuccess(await api.get(`/products/${id}`));
  return { productId: id, schemaIds: product.schemas.map((s: { id: string }) => s.id) };
}

const productItem = (productId: string, schemaId: string, quantity = 1) => ({ type: 'PRODUCT', product_id: productId, billing_schema_id: schemaId, quantity });

describe('invoices of catalog products', () => {
  it('prices a PRODUCT item at base_price x quantity in the schema currency', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const id = await createInvoice(org.test, { items: [productItem(productId, schemaIds[0], 3)] });
    const invoice = await readInvoice(org.test, id, { expand: ['items', 'calculations'] });
    expect(invoice).toMatchObject({ currency: 'EUR', price: r30('149.97'), price_usd: r30(convert('149.97', 'EUR', 'USD')) });
    expect(invoice.items[0]).toMatchObject({
      type: 'PRODUCT',
      currency: 'EUR',
      product_id: productId,
      billing_schema_id: schemaIds[0],
      payment_intent_id: null,
      price: null,
      quantity: 3,
      status: 'INCLUDED',
    });
    expect(invoice.calculations[0]).toMatchObject({
      calculation_type: 'PRODUCT',
      idx: 0,
      currency: 'EUR',
      initial_price: r30('49.99'),
      price: r30('149.97'),
      price_delta: r30('99.98'),
      invoice_item_id: invoice.items[0].id,
      details: { price: r30('49.99'), currency: 'EUR', quantity: 3, product_id: productId },
    });
  });

  it('needs a currency for a product and an intent in different currencies, and converts with one', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const items = [productItem(productId, schemaIds[0], 2), intent('5', 'USD')];
    expectError(await org.test.post('/invoices/create', { items }), 400, { field: 'currency' });
    const id = await createInvoice(org.test, { items, currency: 'USD' });
    const invoice = await readInvoice(org.test, id, { expand: ['calculations'] });
    expect(invoice.price).toBe(r30(convert('99.98', 'EUR', 'USD').add(5)));
    expect(invoice.calculations.map((c: any) => c.calculation_type)).toEqual(['PRODUCT', 'CURRENCY_CHANGE', 'PAYMENT_INTENT', 'TOTAL', 'TOTAL_USD']);
  });

  it('refuses unknown, foreign and other-mode products at the item path', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const mine = await createProduct(org.test);
    const foreign = await createProduct(other.test);
    const live = await createProduct(org.live);
    const cases: Array<[unknown, string]> = [
      [productItem('product_nope', 'schema_nope'), 'items.0.product_id'],
      [productItem(foreign.productId, foreign.schemaIds[0]), 'items.0.product_id'],
      [productItem(live.productId, live.schemaIds[0]), 'items.0.product_id'],
      [productItem(mine.productId, foreign.schemaIds[0]), 'items.0.product_id'],
    ];
    for (const [item, field] of cases) {
      expectError(await org.test.post('/invoices/create', { items: [item] }), 400, { code: 'validation_failed', field });
    }
    expect(expectSuccess(await org.test.post('/invoices/list', {})).total).toBe(0);
  });

  it('expands items.product and items.billing_schema, keeping the version the invoice used', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const id = await createInvoice(org.test, { items: [productItem(productId, schemaIds[0]), intent('1', 'EUR')] });
    const expanded = await readInvoice(org.test, id, { expand: ['items.product', 'items.billing_schema'] });
    expect(expanded.items[0].product).toMatchObject({ id: productId, name: 'Widget', is_active: 1 });
    expect(expanded.items[0].billing_schema).toMatchObject({ id: schemaIds[0], base_price: r30('49.99'), currency: 'EUR' });
    expect(expanded.items[1]).toMatchObject({ product: null, billing_schema: null });

    const productOnly = await readInvoice(org.test, id, { expand: ['items.product'] });
    expect(productOnly.items[0].product.id).toBe(productId);
    expect(productOnly.items[0]).not.toHaveProperty('billing_schema');

    expectSuccess(
      await org.test.put(`/products/${productId}`, { name: 'Widget 2', description: 'New', metadata: {}, schemas: [oneTime({ base_price: '60' })] }),
    );
    const after = await readInvoice(org.test, id, { expand: ['items.product'] });
    expect(after.items[0].product).toMatchObject({ id: productId, name: 'Widget', is_active: 0 });
    expect(after.price).toBe(expanded.price);

    const payerView = await readInvoice(anonymous(), id, { expand: ['items.product'] });
    expect(payerView.items[0].product.id).toBe(productId);
  });

  it('shows a payer (no key) an allow-listed product: no metadata, only the schema the invoice used, no configurations', async () => {
    const org = await createOrg();
    const { id: productId } = expectSuccess(
      await org.test.post('/products', {
        name: 'Widget',
        description: 'A widget',
        metadata: { internal_cost: '3.10' },
        schemas: [oneTime(), oneTime({ name: 'Wholesale', base_price: '20' })],
      }),
    );
    const merchantProduct = expectSuccess(await org.test.get(`/products/${productId}`));
    const [used, unused] = merchantProduct.schemas.map((s: { id: string }) => s.id);
    const id = await createInvoice(org.test, { items: [productItem(productId, used)] });

    const payer = await readInvoice(anonymous(), id, { expand: ['items.product'] });
    expect(JSON.stringify(payer)).not.toContain('internal_cost');
    expect(JSON.stringify(payer)).not.toContain(unused);
    expect(payer.items[0].product).toEqual({
      id: productId,
      name: 'Widget',
      description: 'A widget',
      image: null,
      schemas: [
        {
          id: used,
          name: 'Setup fee',
          description: 'Once',
          type: 'ONE_TIME',
          currency: 'EUR',
          base_price: r30('49.99'),
          interval_type: null,
          interval_count: null,
        },
      ],
    });

    // the merchant's key still sees the full catalog product
    const merchant = await readInvoice(org.test, id, { expand: ['items.product'] });
    expect(merchant.items[0].product).toMatchObject({ id: productId, metadata: { internal_cost: '3.10' }, version_group_id: expect.any(String), is_active: 1 });
    expect(merchant.items[0].product.schemas.map((s: { id: string }) => s.id)).toEqual([used, unused]);
    expect(merchant.items[0].product.schemas[0]).toHaveProperty('configurations');
  });

  it('changes the currency of a product invoice at current rates', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const id = await createInvoice(org.test, { items: [productItem(productId, schemaIds[0], 2)] });
    expectSuccess(await org.test.put(`/invoices/${id}`, { currency: 'USDT' }));
    const invoice = await readInvoice(org.test, id, { expand: ['calculations'] });
    expect(invoice).toMatchObject({ currency: 'USDT', price: r30(convert('99.98', 'EUR', 'USDT')) });
    expect(invoice.calculations.map((c: any) => c.calculation_type)).toEqual(['PRODUCT', 'CURRENCY_CHANGE', 'TOTAL', 'TOTAL_USD']);
  });

  it('re-prices an invoice from the product version it was made with after the merchant replaced it; a new invoice needs the current one', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const id = await createInvoice(org.test, { items: [productItem(productId, schemaIds[0], 2)] });
    expectSuccess(
      await org.test.put(`/products/${productId}`, { name: 'Widget 2', description: 'New', metadata: {}, schemas: [oneTime({ base_price: '60' })] }),
    );
    // The payer changes the currency: 2 x 49.99 EUR as agreed, not 2 x 60.
    expectSuccess(await anonymous().put(`/invoices/${id}`, { currency: 'USDT' }));
    expect(await readInvoice(org.test, id)).toMatchObject({ currency: 'USDT', price: r30(convert('99.98', 'EUR', 'USDT')) });
    const quote = expectSuccess(await org.test.post('/pay/quote', { currency: 'BITCOIN', invoice_id: id }));
    expect(quote.total.price).toBe(r30(convert('99.98', 'EUR', 'BITCOIN')));
    const summary = await readInvoice(org.test, id, { currency: 'EUR' });
    expect(summary.summary.price).toBe(r30('99.98'));
    // A new invoice of the replaced version is refused, naming the item.
    expectError(await org.test.post('/invoices/create', { items: [productItem(productId, schemaIds[0])] }), 400, { field: 'items.0.product_id' });
  });

  it('quotes an existing invoice through its items (GetInvoiceItemsQuery), scoped to the caller', async () => {
    const org = await createOrg();
    const { productId, schemaIds } = await createProduct(org.test);
    const id = await createInvoice(org.test, { items: [productItem(productId, schemaIds[0], 2), intent('0.000000000000000000000000000001', 'EUR')] });
    const quote = expectSuccess(await org.test.post('/pay/quote', { currency: 'BITCOIN', invoice_id: id }));
    const expected = convert('99.98', 'EUR', 'BITCOIN').add(convert('0.000000000000000000000000000001', 'EUR', 'BITCOIN'));
    expect(quote.total.price).toBe(r30(expected));
    expect(quote.items[0].item).toMatchObject({ type: 'PRODUCT', product_id: productId, billing_schema_id: schemaIds[0], quantity: 2 });
    const invoice = await readInvoice(org.test, id, { expand: ['items'] });
    expect(quote.items[1].calculations[0].details.payment_intent_id).toBe(invoice.items[1].payment_intent_id);
    expectError(await org.live.post('/pay/quote', { currency: 'BITCOIN', invoice_id: id }), 404);
  });
});
