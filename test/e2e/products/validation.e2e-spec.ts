import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { oneTimeSchema, productBody, recurringSchema } from './product-bodies';

type Body = Record<string, any>;

const tier = (starts_at: unknown, ends_at: unknown, price_per_unit: unknown = 1, metric: unknown = { metric_key: 'units', aggregation_type: 'SUM' }) => ({
  starts_at,
  ends_at,
  price_per_unit,
  metric,
});
const withTiers = (...configurations: unknown[]) => productBody({ schemas: [recurringSchema({ configurations })] });
const withSchema = (overrides: Record<string, unknown>) => productBody({ schemas: [recurringSchema(overrides)] });
const withoutKey = (body: Body, key: string) => {
  const copy = { ...body };
  delete copy[key];
  return copy;
};
const schemaWithout = (key: string) => productBody({ schemas: [withoutKey(recurringSchema(), key)] });

const CASES: Array<[string, Body, string]> = [
  ['name missing', withoutKey(productBody(), 'name'), 'name'],
  ['name empty', productBody({ name: '' }), 'name'],
  ['name blank', productBody({ name: '   ' }), 'name'],
  ['name too long', productBody({ name: 'x'.repeat(201) }), 'name'],
  ['name not a string', productBody({ name: 42 }), 'name'],
  ['description too long', productBody({ description: 'x'.repeat(2001) }), 'description'],
  ['metadata not an object', productBody({ metadata: 'tier=pro' }), 'metadata'],
  ['metadata with a non-string value', productBody({ metadata: { count: 3 } }), 'metadata'],
  ['metadata with too many keys', productBody({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), 'metadata'],
  ['metadata with a long key', productBody({ metadata: { ['k'.repeat(41)]: 'v' } }), 'metadata'],
  ['metadata with a long value', productBody({ metadata: { k: 'v'.repeat(501) } }), 'metadata'],
  ['image_id not a string', productBody({ image_id: 7 }), 'image_id'],
  ['schemas missing', withoutKey(productBody(), 'schemas'), 'schemas'],
  ['schemas empty', productBody({ schemas: [] }), 'schemas'],
  ['schemas not an array', productBody({ schemas: { name: 'x' } }), 'schemas'],
  ['schema name missing', productBody({ schemas: [recurringSchema(), withoutKey(oneTimeSchema(), 'name')] }), 'schemas.1.name'],
  ['schema name blank', productBody({ schemas: [recurringSchema({ name: ' ' })] }), 'schemas.0.name'],
  ['currency unknown', withSchema({ currency: 'XYZ' }), 'schemas.0.currency'],
  ['currency missing', schemaWithout('currency'), 'schemas.0.currency'],
  ['type unknown', withSchema({ type: 'WEEKLY' }), 'schemas.0.type'],
  ['type missing', schemaWithout('type'), 'schemas.0.type'],
  ['RECURRING without interval_type', schemaWithout('interval_type'), 'schemas.0.interval_type'],
  ['RECURRING without interval_count', schemaWithout('interval_count'), 'schemas.0.interval_count'],
  ['RECURRING without payment_type', schemaWithout('payment_type'), 'schemas.0.payment_type'],
  ['RECURRING without renew_type', schemaWithout('renew_type'), 'schemas.0.renew_type'],
  ['RECURRING without billing_type', withSchema({ billing_type: null }), 'schemas.0.billing_type'],
  ['interval_type unknown', withSchema({ interval_type: 'HOUR' }), 'schemas.0.interval_type'],
  ['interval_count zero', withSchema({ interval_count: 0 }), 'schemas.0.interval_count'],
  ['interval_count fractional', withSchema({ interval_count: 1.5 }), 'schemas.0.interval_count'],
  ['interval_count a string', withSchema({ interval_count: '1' }), 'schemas.0.interval_count'],
  ['payment_type unknown', withSchema({ payment_type: 'LATER' }), 'schemas.0.payment_type'],
  ['renew_type unknown', withSchema({ renew_type: 'NEVER' }), 'schemas.0.renew_type'],
  ['billing_type unknown', withSchema({ billing_type: 'PARTIAL' }), 'schemas.0.billing_type'],
  ['base_price missing', schemaWithout('base_price'), 'schemas.0.base_price'],
  ['base_price negative', withSchema({ base_price: -1 }), 'schemas.0.base_price'],
  ['base_price negative string', withSchema({ base_price: '-0.01' }), 'schemas.0.base_price'],
  ['base_price with an exponent', withSchema({ base_price: '1e5' }), 'schemas.0.base_price'],
  ['base_price not a number', withSchema({ base_price: 'ten' }), 'schemas.0.base_price'],
  ['base_price with 31 fractional digits', withSchema({ base_price: `0.${'1'.repeat(31)}` }), 'schemas.0.base_price'],
  ['configurations not an array', withSchema({ configurations: 'none' }), 'schemas.0.configurations'],
  [
    'tier without starts_at',
    withTiers({ ends_at: 10, price_per_unit: 1, metric: { metric_key: 'u', aggregation_type: 'SUM' } }),
    'schemas.0.configurations.0.starts_at',
  ],
  ['tier starts_at negative', withTiers(tier(-1, 10)), 'schemas.0.configurations.0.starts_at'],
  ['tier ends_at negative', withTiers(tier(0, -10)), 'schemas.0.configurations.0.ends_at'],
  ['tier starts_at equal to ends_at', withTiers(tier(0, 10), tier(10, 10)), 'schemas.0.configurations.1.starts_at'],
  ['tier starts_at after ends_at', withTiers(tier(0, 10), tier(20, 15)), 'schemas.0.configurations.1.starts_at'],
  ['overlapping tiers', withTiers(tier(0, 100), tier(50, null)), 'schemas.0.configurations.1.starts_at'],
  ['a tier after the open tier', withTiers(tier(0, null), tier(100, 200)), 'schemas.0.configurations.1.starts_at'],
  ['price_per_unit negative', withTiers(tier(0, null, -0.5)), 'schemas.0.configurations.0.price_per_unit'],
  ['price_per_unit missing', withTiers({ starts_at: 0, metric: { metric_key: 'u', aggregation_type: 'SUM' } }), 'schemas.0.configurations.0.price_per_unit'],
  ['metric missing', withTiers({ starts_at: 0, ends_at: null, price_per_unit: 1 }), 'schemas.0.configurations.0.metric'],
  ['metric not an object', withTiers(tier(0, null, 1, 'units')), 'schemas.0.configurations.0.metric'],
  [
    'metric aggregation_type unknown',
    withTiers(tier(0, null, 1, { metric_key: 'u', aggregation_type: 'AVG' })),
    'schemas.0.configurations.0.metric.aggregation_type',
  ],
  ['metric without aggregation_type or id', withTiers(tier(0, null, 1, { metric_key: 'u' })), 'schemas.0.configurations.0.metric.aggregation_type'],
  ['metric without metric_key or id', withTiers(tier(0, null, 1, { name: 'Units', aggregation_type: 'SUM' })), 'schemas.0.configurations.0.metric.metric_key'],
  ['metric_key with spaces', withTiers(tier(0, null, 1, { metric_key: 'api calls', aggregation_type: 'SUM' })), 'schemas.0.configurations.0.metric.metric_key'],
  ['metric id unknown', withTiers(tier(0, null, 1, { id: 'metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b' })), 'schemas.0.configurations.0.metric.id'],
];

describe('Products: validation', () => {
  let org: TestOrg;
  let existing: string;

  beforeAll(async () => {
    org = await createOrg();
    existing = expectSuccess(await org.test.post('/products', productBody({ name: 'Existing' }))).id;
  });

  it.each(CASES)('POST: %s is 400 at %s', async (_, body, field) => {
    const res = await org.test.post('/products', body);
    const error = expectError(res, 400, { code: 'validation_failed', field });
    expect(typeof error.validator[field]).toBe('string');
  });

  it.each(CASES)('PUT: %s is 400 at %s', async (_, body, field) => {
    expectError(await org.test.put(`/products/${existing}`, body), 400, { code: 'validation_failed', field });
  });

  it('stored nothing for the refused requests', async () => {
    const all = expectSuccess(await org.test.get('/products?include_inactive=true'));
    expect(all.map((p: any) => [p.id, p.is_active])).toEqual([[existing, true]]);
  });

  it('reports every problem of a body at once', async () => {
    const body = productBody({ name: '', schemas: [recurringSchema({ currency: 'XYZ', base_price: -1 })] });
    const error = expectError(await org.test.post('/products', body), 400);
    expect(Object.keys(error.validator).sort()).toEqual(['name', 'schemas.0.base_price', 'schemas.0.currency']);
  });

  it('answers 400 to a malformed body', async () => {
    const res = await org.test.request('POST', '/products', { rawBody: '{"name": "x", ', headers: { 'content-type': 'application/json' } });
    expectError(res, 400);
  });

  // A currency code in lower case is read as the code it spells (it was a 400 before codes were read
  // in any letter case); the product keeps the canonical code.
  it('takes a lower-case currency code and stores the canonical one', async () => {
    const other = await createOrg();
    const id = expectSuccess(await other.test.post('/products', withSchema({ currency: 'usd' }))).id;
    const product = expectSuccess(await other.test.get(`/products/${id}`));
    expect(product.schemas.map((schema: any) => schema.currency)).toEqual(['USD']);
  });
});
