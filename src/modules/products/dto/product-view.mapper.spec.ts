import { Money } from '../../../shared/money/money';
import { ConfigurationRow, MetricRow, ProductRow, SchemaRow, toPricingSchema, toProductsByIds, toProductView } from './product-view.mapper';

const at = new Date('2026-11-21T10:00:00.123Z');
const later = new Date('2026-11-22T11:30:00Z');

const product = (id: string, isActive = true): ProductRow => ({
  id,
  organizationId: 'org_1',
  versionGroupId: 'product_g',
  isActive,
  name: `Product ${id}`,
  description: '',
  imageId: null,
  metadata: { a: 'b' },
  createdAt: at,
  updatedAt: isActive ? null : later,
});

const schema = (id: string, productId: string, position: number, isActive = true): SchemaRow => ({
  id,
  organizationId: 'org_1',
  productId,
  versionGroupId: `g_${id}`,
  isActive,
  position,
  name: `Schema ${id}`,
  description: 'd',
  type: 'ONE_TIME',
  currency: 'USD',
  basePrice: new Money('12.5'),
  intervalType: null,
  intervalCount: null,
  paymentType: null,
  renewType: null,
  billingType: null,
  createdAt: at,
  updatedAt: null,
});

const config = (id: string, schemaId: string, position: number, endsAt: string | null = null): ConfigurationRow => ({
  id,
  schemaId,
  versionGroupId: `g_${id}`,
  isActive: true,
  position,
  startsAt: new Money(position * 10),
  endsAt: endsAt === null ? null : new Money(endsAt),
  pricePerUnit: new Money('0.000000000000000000000000000001'),
  metricId: 'metric_1',
  createdAt: at,
  updatedAt: null,
});

const metrics = new Map<string, MetricRow>([['metric_1', { id: 'metric_1', metricKey: 'calls', name: 'Calls', aggregationType: 'SUM' }]]);

describe('toProductView', () => {
  it.each([
    ['integer', 1, 0],
    ['boolean', true, false],
  ] as const)('renders is_active in the %s form', (form, active, inactive) => {
    const view = toProductView(product('p1', false), [schema('s1', 'p1', 0, false)], [config('c1', 's1', 0)], metrics, form);
    expect(view.is_active).toBe(inactive);
    expect(view.schemas[0].is_active).toBe(inactive);
    expect(view.schemas[0].configurations[0].is_active).toBe(active);
  });

  it('orders schemas and tiers by position and keeps only their own', () => {
    const schemas = [schema('s2', 'p1', 1), schema('other', 'p2', 0), schema('s1', 'p1', 0)];
    const configs = [config('c2', 's1', 1, '30'), config('x', 'other', 0), config('c1', 's1', 0, '10')];
    const view = toProductView(product('p1'), schemas, configs, metrics, 'integer');
    expect(view.schemas.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(view.schemas[0].configurations.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(view.schemas[1].configurations).toEqual([]);
  });

  it('renders amounts with 30 fractional digits and timestamps as YYYY-MM-DD HH:MM:SS', () => {
    const view = toProductView(product('p1', false), [schema('s1', 'p1', 0)], [config('c1', 's1', 0, '10'), config('c2', 's1', 1)], metrics, 'integer');
    expect(view.created_at).toBe('2026-11-21 10:00:00');
    expect(view.updated_at).toBe('2026-11-22 11:30:00');
    expect(view.image).toBeNull();
    const s = view.schemas[0];
    expect(s.base_price).toBe('12.500000000000000000000000000000');
    expect(s.updated_at).toBeNull();
    expect(s.configurations[0]).toMatchObject({
      starts_at: '0.000000000000000000000000000000',
      ends_at: '10.000000000000000000000000000000',
      price_per_unit: '0.000000000000000000000000000001',
      metric_id: 'metric_1',
      metric: { id: 'metric_1', metric_key: 'calls', name: 'Calls', aggregation_type: 'SUM' },
    });
    expect(s.configurations[1].ends_at).toBeNull();
  });
});

describe('toPricingSchema', () => {
  it.each([
    ['no product', null, schema('s1', 'p1', 0), null],
    ['no schema', product('p1'), null, null],
  ] as const)('is null with %s', (_, p, s, expected) => {
    expect(toPricingSchema(p, s)).toBe(expected);
  });

  it.each([
    ['a schema of the product', 'p1', true],
    ['a schema of another product', 'p9', false],
  ])('maps %s', (_, productOfSchema, belongs) => {
    const result = toPricingSchema(product('p1', false), schema('s1', productOfSchema, 0, false));
    expect(result).toMatchObject({
      productId: 'p1',
      productName: 'Product p1',
      productActive: false,
      schemaId: 's1',
      schemaName: 'Schema s1',
      schemaActive: false,
      schemaOfProduct: belongs,
      type: 'ONE_TIME',
      currency: 'USD',
    });
    expect(result!.basePrice.equals(new Money('12.5'))).toBe(true);
  });
});

describe('toProductsByIds', () => {
  it('keys products and the requested schemas by id, in single-read form', () => {
    const schemas = [schema('s1', 'p1', 0), schema('s2', 'p1', 1), schema('s9', 'p9', 0)];
    const result = toProductsByIds([product('p1')], schemas, [config('c1', 's9', 0)], metrics, ['s9', 's2']);
    expect(Object.keys(result.products)).toEqual(['p1']);
    expect(result.products.p1.schemas.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(result.products.p1.is_active).toBe(1);
    expect(Object.keys(result.schemas).sort()).toEqual(['s2', 's9']);
    expect(result.schemas.s9.configurations.map((c) => c.id)).toEqual(['c1']);
  });

  it('is empty when nothing was found', () => {
    expect(toProductsByIds([], [], [], new Map(), ['s1'])).toEqual({ products: {}, schemas: {} });
  });
});
