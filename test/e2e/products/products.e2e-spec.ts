import { Api, anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { PNG, upload } from '../files/files-helpers';
import { oneTimeSchema, productBody, recurringSchema, TIMESTAMP } from './product-bodies';

const zeros = (whole: string, fraction = '') => `${whole}.${fraction.padEnd(30, '0')}`;

async function createProduct(api: Api, body: unknown = productBody()): Promise<string> {
  const data = expectSuccess(await api.post('/products', body), 200);
  expect(Object.keys(data)).toEqual(['id']);
  expect(data.id).toMatch(/^product_[0-9a-f-]{36}$/);
  return data.id;
}

describe('Products: authentication', () => {
  it('answers 401 on every endpoint without a key', async () => {
    const org = await createOrg();
    const id = await createProduct(org.test);
    expectError(await anonymous().post('/products', productBody()), 401, { code: 'missing_api_key' });
    expectError(await anonymous().put(`/products/${id}`, productBody()), 401, { code: 'missing_api_key' });
    expectError(await anonymous().get(`/products/${id}`), 401, { code: 'missing_api_key' });
    expectError(await anonymous().get('/products'), 401, { code: 'missing_api_key' });
    expectError(await new Api(`sk_test_${'Z'.repeat(40)}`).get('/products'), 401, { code: 'invalid_api_key' });
  });

  it('answers 403 to a read-only key on create and replace, and lets it read', async () => {
    const org = await createOrg();
    const id = await createProduct(org.test);
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await readOnly.post('/products', productBody()), 403, { code: 'read_only_key' });
    expectError(await readOnly.put(`/products/${id}`, productBody({ name: 'Changed' })), 403, { code: 'read_only_key' });
    expect(expectSuccess(await readOnly.get(`/products/${id}`)).name).toBe('Pro plan');
    expect(expectSuccess(await readOnly.get('/products')).map((p: any) => p.id)).toEqual([id]);
    // The refused replace changed nothing.
    expect(expectSuccess(await org.test.get(`/products/${id}`)).is_active).toBe(1);
  });
});

describe('Products: create and read', () => {
  it('reads a created product back field for field', async () => {
    const org = await createOrg();
    const imageId = expectSuccess(await upload(org.test, PNG, { filename: 'pro.png' })).id;
    const id = await createProduct(
      org.test,
      productBody({
        image_id: imageId,
        schemas: [
          recurringSchema({ base_price: 100.25 }),
          oneTimeSchema({ base_price: '0.000000000000000000000000000001', interval_type: 'MONTH', interval_count: 3 }),
        ],
      }),
    );
    const res = await org.test.get(`/products/${id}`);
    const product = expectSuccess(res);
    expect(res.body.env).toBe('development');
    expect(Object.keys(product).sort()).toEqual(
      [
        'created_at',
        'description',
        'id',
        'image',
        'image_id',
        'is_active',
        'metadata',
        'name',
        'organization_id',
        'schemas',
        'updated_at',
        'version_group_id',
      ].sort(),
    );
    expect(product).toMatchObject({
      id,
      is_active: 1,
      name: 'Pro plan',
      organization_id: org.id,
      description: 'Everything in Basic, plus API access',
      image_id: imageId,
      image: { id: imageId, name: 'pro.png', mime_type: 'image/png', url: expect.stringMatching(/\/content$/) },
      metadata: { tier: 'pro', team: 'growth' },
      updated_at: null,
    });
    expect(product.version_group_id).toMatch(/^product_/);
    expect(product.version_group_id).not.toBe(id);
    expect(product.created_at).toMatch(TIMESTAMP);
    expect(product.schemas).toHaveLength(2);

    const [recurring, oneTime] = product.schemas;
    expect(recurring).toEqual({
      id: expect.stringMatching(/^schema_/),
      version_group_id: expect.stringMatching(/^schema_/),
      organization_id: org.id,
      product_id: id,
      is_active: 1,
      name: 'Monthly',
      description: 'Billed monthly in arrears',
      type: 'RECURRING',
      currency: 'USD',
      base_price: zeros('100', '25'),
      interval_type: 'MONTH',
      interval_count: 1,
      payment_type: 'ARREARS',
      renew_type: 'CALENDAR',
      billing_type: 'FULL',
      configurations: expect.any(Array),
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: null,
    });
    expect(recurring.configurations).toHaveLength(2);
    const [first, second] = recurring.configurations;
    expect(first).toEqual({
      id: expect.stringMatching(/^config_/),
      version_group_id: expect.stringMatching(/^config_/),
      is_active: 1,
      schema_id: recurring.id,
      starts_at: zeros('0'),
      ends_at: zeros('1000'),
      price_per_unit: zeros('0', '01'),
      metric_id: expect.stringMatching(/^metric_/),
      metric: { id: first.metric_id, metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' },
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: null,
    });
    expect(second).toMatchObject({ starts_at: zeros('1000'), ends_at: null, price_per_unit: zeros('0', '005'), metric_id: first.metric_id });

    // ONE_TIME stores no recurring terms, even when they were sent; tiny amounts stay exact.
    expect(oneTime).toMatchObject({
      type: 'ONE_TIME',
      currency: 'EUR',
      base_price: '0.000000000000000000000000000001',
      interval_type: null,
      interval_count: null,
      payment_type: null,
      renew_type: null,
      billing_type: null,
      configurations: [],
    });
  });

  it('keeps amounts exact beyond what a float holds, whether sent as numbers or strings', async () => {
    const org = await createOrg();
    // Written by hand: JSON.stringify would round these numbers before they leave the client.
    const raw = `{"name":"Exact","schemas":[{"name":"Usage","currency":"ETHEREUM","type":"ONE_TIME",
      "base_price":"123456789012345678901234567890.123456789012345678901234567891",
      "configurations":[{"starts_at":0.1,"ends_at":0.30000000000000000000000000001,"price_per_unit":9007199254740993,
        "metric":{"metric_key":"gb","aggregation_type":"MAX"}}]}]}`;
    const created = await org.test.request('POST', '/products', { rawBody: raw, headers: { 'content-type': 'application/json' } });
    const { id } = expectSuccess(created);
    const schema = expectSuccess(await org.test.get(`/products/${id}`)).schemas[0];
    expect(schema.base_price).toBe('123456789012345678901234567890.123456789012345678901234567891');
    expect(schema.configurations[0]).toMatchObject({
      starts_at: zeros('0', '1'),
      ends_at: zeros('0', '30000000000000000000000000001'),
      price_per_unit: zeros('9007199254740993'),
      metric: { metric_key: 'gb', name: 'gb', aggregation_type: 'MAX' },
    });
  });

  it('accepts a minimal product and reads empty description and metadata', async () => {
    const org = await createOrg();
    const id = await createProduct(org.test, { name: 'Bare', schemas: [{ name: 'Once', currency: 'BITCOIN', type: 'ONE_TIME', base_price: 0 }] });
    const product = expectSuccess(await org.test.get(`/products/${id}`));
    expect(product).toMatchObject({ name: 'Bare', description: '', metadata: {}, image_id: null });
    expect(product.schemas[0]).toMatchObject({ description: '', currency: 'BITCOIN', base_price: zeros('0'), configurations: [] });
  });

  it('lists active products newest first with boolean is_active, and pages with limit and offset', async () => {
    const org = await createOrg();
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) ids.push(await createProduct(org.test, productBody({ name })));
    const list = expectSuccess(await org.test.get('/products'));
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((p: any) => p.id)).toEqual([...ids].reverse());
    expect(list[0]).toMatchObject({ name: 'C', is_active: true, organization_id: org.id });
    expect(list[0].schemas[0]).toMatchObject({ is_active: true, base_price: zeros('100') });
    expect(list[0].schemas[0].configurations[0].is_active).toBe(true);

    expect(expectSuccess(await org.test.get('/products?limit=2')).map((p: any) => p.name)).toEqual(['C', 'B']);
    expect(expectSuccess(await org.test.get('/products?limit=2&offset=2')).map((p: any) => p.name)).toEqual(['A']);
    expectError(await org.test.get('/products?limit=101'), 400, { field: 'limit' });
    expectError(await org.test.get('/products?offset=-1'), 400, { field: 'offset' });
    expectError(await org.test.get('/products?include_inactive=yes'), 400, { field: 'include_inactive' });
  });

  it('returns 20 products by default and at most 100', async () => {
    const org = await createOrg();
    const body = { name: 'Small', schemas: [{ name: 'Once', currency: 'USD', type: 'ONE_TIME', base_price: 1 }] };
    for (let i = 0; i < 21; i++) await createProduct(org.test, { ...body, name: `Small ${i}` });
    const page = expectSuccess(await org.test.get('/products'));
    expect(page).toHaveLength(20);
    expect(page[0].name).toBe('Small 20');
    expect(expectSuccess(await org.test.get('/products?limit=100'))).toHaveLength(21);
  });

  it('finds metrics by key across products and accepts an existing metric by id', async () => {
    const org = await createOrg();
    const first = await createProduct(org.test);
    const metricId = expectSuccess(await org.test.get(`/products/${first}`)).schemas[0].configurations[0].metric_id;

    const second = await createProduct(
      org.test,
      productBody({
        schemas: [
          recurringSchema({
            configurations: [
              { starts_at: 0, ends_at: 10, price_per_unit: 1, metric: { metric_key: 'api_calls', name: 'Other name', aggregation_type: 'SUM' } },
              { starts_at: 10, ends_at: null, price_per_unit: 2, metric: { id: metricId } },
            ],
          }),
        ],
      }),
    );
    const tiers = expectSuccess(await org.test.get(`/products/${second}`)).schemas[0].configurations;
    expect(tiers.map((t: any) => t.metric_id)).toEqual([metricId, metricId]);
    expect(tiers[0].metric.name).toBe('API calls');
  });

  it('refuses metric fields that contradict the existing metric', async () => {
    const org = await createOrg();
    const first = await createProduct(org.test);
    const metricId = expectSuccess(await org.test.get(`/products/${first}`)).schemas[0].configurations[0].metric_id;
    const one = (metric: unknown) =>
      productBody({ schemas: [recurringSchema({ configurations: [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric }] })] });
    expectError(await org.test.post('/products', one({ metric_key: 'api_calls', aggregation_type: 'MAX' })), 400, {
      field: 'schemas.0.configurations.0.metric.aggregation_type',
    });
    expectError(await org.test.post('/products', one({ id: metricId, metric_key: 'storage' })), 400, { field: 'schemas.0.configurations.0.metric.metric_key' });
    expectError(await org.test.post('/products', one({ id: metricId, aggregation_type: 'COUNT' })), 400, {
      field: 'schemas.0.configurations.0.metric.aggregation_type',
    });
    // Agreeing fields are fine.
    expectSuccess(await org.test.post('/products', one({ id: metricId, metric_key: 'api_calls', aggregation_type: 'SUM' })));
    expect(expectSuccess(await org.test.get('/products'))).toHaveLength(2);
  });

  it('refuses a metric id of another organization or mode as unknown', async () => {
    const org = await createOrg();
    const other = await createOrg();
    const foreign = expectSuccess(await other.test.get(`/products/${await createProduct(other.test)}`)).schemas[0].configurations[0].metric_id;
    const live = expectSuccess(await org.live.get(`/products/${await createProduct(org.live)}`)).schemas[0].configurations[0].metric_id;
    for (const id of [foreign, live, 'metric_nope']) {
      const body = productBody({ schemas: [recurringSchema({ configurations: [{ starts_at: 0, ends_at: null, price_per_unit: 1, metric: { id } }] })] });
      expectError(await org.test.post('/products', body), 400, { code: 'validation_failed', field: 'schemas.0.configurations.0.metric.id' });
    }
    expect(expectSuccess(await org.test.get('/products'))).toEqual([]);
  });
});

describe('Products: tenancy', () => {
  it("answers 404 for an unknown id, another organization's product and the other mode's product", async () => {
    const org = await createOrg();
    const other = await createOrg();
    const foreign = await createProduct(other.test);
    const live = await createProduct(org.live);
    for (const id of ['product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b', 'not-an-id', foreign, live]) {
      expectError(await org.test.get(`/products/${id}`), 404, { code: 'product_not_found' });
      expectError(await org.test.put(`/products/${id}`, productBody()), 404, { code: 'product_not_found' });
    }
    // Nothing was replaced in the other organization or mode.
    expect(expectSuccess(await other.test.get(`/products/${foreign}`)).is_active).toBe(1);
    expect(expectSuccess(await org.live.get(`/products/${live}`)).is_active).toBe(1);
  });

  it('keeps test and live catalogs apart', async () => {
    const org = await createOrg();
    const testId = await createProduct(org.test, productBody({ name: 'Test product' }));
    const liveId = await createProduct(org.live, productBody({ name: 'Live product' }));
    const testList = expectSuccess(await org.test.get('/products'));
    const liveRes = await org.live.get('/products');
    const liveList = expectSuccess(liveRes);
    expect(liveRes.body.env).toBe('production');
    expect(testList.map((p: any) => p.id)).toEqual([testId]);
    expect(liveList.map((p: any) => p.id)).toEqual([liveId]);
    // Metrics are per mode too: the same key makes two metrics.
    const testMetric = testList[0].schemas[0].configurations[0].metric_id;
    const liveMetric = liveList[0].schemas[0].configurations[0].metric_id;
    expect(testMetric).not.toBe(liveMetric);
    const other = await createOrg();
    expect(expectSuccess(await other.test.get('/products'))).toEqual([]);
  });
});
