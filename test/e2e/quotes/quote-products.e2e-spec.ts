import Decimal from 'decimal.js';
import { BUNDLED_SNAPSHOT } from '../../../src/modules/rates/domain/default-snapshot';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { r30 } from '../../support/money';
import { productBody } from '../products/product-bodies';

async function makeProduct(org: TestOrg) {
  const id = expectSuccess(await org.test.post('/products', productBody())).id;
  const product = expectSuccess(await org.test.get(`/products/${id}`));
  return { id, monthly: product.schemas[0].id as string, setup: product.schemas[1].id as string };
}

describe('POST /pay/quote with catalog products', () => {
  it('quotes the product variant: base price x quantity, then a currency change', async () => {
    const org = await createOrg();
    const p = await makeProduct(org);
    const data = expectSuccess(await org.test.post('/pay/quote', { currency: 'USD', product: { id: p.id, quantity: 3, billing_schema_id: p.setup } }));
    const [entry] = data.items;
    expect(entry.item).toEqual({ type: 'PRODUCT', product_id: p.id, quantity: 3, billing_schema_id: p.setup, currency: 'EUR' });
    const [product, change] = entry.calculations;
    expect(product).toMatchObject({
      idx: 0,
      calculation_type: 'PRODUCT',
      currency: 'EUR',
      initial_price: r30('49.99'),
      price: r30('149.97'),
      price_delta: r30('99.98'),
      details: { price: r30('49.99'), currency: 'EUR', quantity: 3, product_id: p.id },
    });
    const usd = new Decimal('149.97').mul(BUNDLED_SNAPSHOT.rates.EUR);
    expect(change).toMatchObject({ idx: 1, calculation_type: 'CURRENCY_CHANGE', price: r30(usd) });
    expect(data.total).toEqual({ currency: 'USD', price: r30(usd), price_usd: r30(usd) });
  });

  it("names the product variant's own field when its amount is past 48 integer digits", async () => {
    const org = await createOrg();
    const big = `1${'0'.repeat(47)}`;
    const id = expectSuccess(
      await org.test.post(
        '/products',
        productBody({ schemas: [{ name: 'Huge', description: 'Huge', currency: 'USD', type: 'ONE_TIME', base_price: big, configurations: [] }] }),
      ),
    ).id;
    const schema = expectSuccess(await org.test.get(`/products/${id}`)).schemas[0].id;
    expectError(await org.test.post('/pay/quote', { currency: 'USD', product: { id, billing_schema_id: schema, quantity: 10 } }), 400, {
      field: 'product.quantity',
    });
  });

  it('mixes products and payment intents in the items variant, a recurring schema charged one interval', async () => {
    const org = await createOrg();
    const p = await makeProduct(org);
    const data = expectSuccess(
      await org.test.post('/pay/quote', {
        currency: 'USD',
        items: [
          { type: 'PRODUCT', product_id: p.id, billing_schema_id: p.monthly, quantity: 2 },
          { type: 'PAYMENT_INTENT', currency: 'USD', price: '0.5' },
        ],
      }),
    );
    expect(data.items[0].calculations).toHaveLength(1);
    expect(data.items[0].total.price).toBe(r30(200));
    expect(data.total.price).toBe(r30('200.5'));
  });

  it("refuses an inactive version, a schema of another product and another organization's product", async () => {
    const org = await createOrg();
    const p = await makeProduct(org);
    const other = await makeProduct(org);
    expectError(await org.test.post('/pay/quote', { currency: 'USD', product: { id: p.id, quantity: 1, billing_schema_id: other.setup } }), 400, {
      field: 'product.billing_schema_id',
    });

    const newId = expectSuccess(await org.test.put(`/products/${p.id}`, productBody({ name: 'Pro plan v2' }))).id;
    expectError(await org.test.post('/pay/quote', { currency: 'USD', product: { id: p.id, quantity: 1, billing_schema_id: p.setup } }), 400, {
      field: 'product.id',
    });
    const fresh = expectSuccess(await org.test.get(`/products/${newId}`));
    expectSuccess(await org.test.post('/pay/quote', { currency: 'USD', product: { id: newId, quantity: 1, billing_schema_id: fresh.schemas[1].id } }));

    const stranger = await createOrg();
    expectError(
      await stranger.test.post('/pay/quote', {
        currency: 'USD',
        items: [{ type: 'PRODUCT', product_id: newId, billing_schema_id: fresh.schemas[1].id, quantity: 1 }],
      }),
      400,
      { field: 'items.0.product_id' },
    );
    expectError(await org.live.post('/pay/quote', { currency: 'USD', product: { id: newId, quantity: 1, billing_schema_id: fresh.schemas[1].id } }), 400, {
      field: 'product.id',
    });
  });
});
