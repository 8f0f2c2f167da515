import type { Currency } from '../../../shared/money/currency';
import { Amount, renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import type { PricingSchema } from '../queries/get-pricing-schema/get-pricing-schema.query';
import type { ProductsByIds } from '../queries/get-products-by-ids/get-products-by-ids.query';
import type { BillingSchemaView, ConfigurationView, ProductView } from './product.view';

/**
 * Pure mapping from stored rows to the interface's read forms. The row shapes are what the
 * persistence records carry; nothing here touches the database.
 */
export interface ProductRow {
  id: string;
  organizationId: string;
  versionGroupId: string;
  isActive: boolean;
  name: string;
  description: string;
  imageId: string | null;
  metadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface SchemaRow {
  id: string;
  organizationId: string;
  productId: string;
  versionGroupId: string;
  isActive: boolean;
  position: number;
  name: string;
  description: string;
  type: 'ONE_TIME' | 'RECURRING';
  currency: Currency;
  basePrice: Amount;
  intervalType: string | null;
  intervalCount: number | null;
  paymentType: string | null;
  renewType: string | null;
  billingType: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface ConfigurationRow {
  id: string;
  schemaId: string;
  versionGroupId: string;
  isActive: boolean;
  position: number;
  startsAt: Amount;
  endsAt: Amount | null;
  pricePerUnit: Amount;
  metricId: string;
  createdAt: Date;
  updatedAt: Date | null;
}

export interface MetricRow {
  id: string;
  metricKey: string;
  name: string;
  aggregationType: string;
}

/** Single reads show is_active as 1/0; the list shows it as a boolean (as the interface's examples do). */
export type ActiveForm = 'integer' | 'boolean';

const activeFlag = (active: boolean, form: ActiveForm): number | boolean => (form === 'integer' ? (active ? 1 : 0) : active);

const byPosition = <T extends { position: number }>(rows: readonly T[]): T[] => [...rows].sort((a, b) => a.position - b.position);

export function toConfigurationView(row: ConfigurationRow, metrics: ReadonlyMap<string, MetricRow>, form: ActiveForm): ConfigurationView {
  const metric = metrics.get(row.metricId);
  return {
    id: row.id,
    version_group_id: row.versionGroupId,
    is_active: activeFlag(row.isActive, form),
    schema_id: row.schemaId,
    starts_at: renderAmount(row.startsAt),
    ends_at: row.endsAt === null ? null : renderAmount(row.endsAt),
    price_per_unit: renderAmount(row.pricePerUnit),
    metric_id: row.metricId,
    ...(metric ? { metric: { id: metric.id, metric_key: metric.metricKey, name: metric.name, aggregation_type: metric.aggregationType } } : {}),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

export function toBillingSchemaView(
  row: SchemaRow,
  configurations: readonly ConfigurationRow[],
  metrics: ReadonlyMap<string, MetricRow>,
  form: ActiveForm,
): BillingSchemaView {
  return {
    id: row.id,
    version_group_id: row.versionGroupId,
    organization_id: row.organizationId,
    product_id: row.productId,
    is_active: activeFlag(row.isActive, form),
    name: row.name,
    description: row.description,
    type: row.type,
    currency: row.currency,
    base_price: renderAmount(row.basePrice),
    interval_type: row.intervalType,
    interval_count: row.intervalCount,
    payment_type: row.paymentType,
    renew_type: row.renewType,
    billing_type: row.billingType,
    configurations: byPosition(configurations.filter((c) => c.schemaId === row.id)).map((c) => toConfigurationView(c, metrics, form)),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

export function toProductView(
  row: ProductRow,
  schemas: readonly SchemaRow[],
  configurations: readonly ConfigurationRow[],
  metrics: ReadonlyMap<string, MetricRow>,
  form: ActiveForm,
): ProductView {
  return {
    id: row.id,
    version_group_id: row.versionGroupId,
    is_active: activeFlag(row.isActive, form),
    name: row.name,
    organization_id: row.organizationId,
    description: row.description,
    image_id: row.imageId,
    // The files module holds the image: ProductImages fills this in after the catalog read.
    image: null,
    metadata: row.metadata,
    schemas: byPosition(schemas.filter((s) => s.productId === row.id)).map((s) => toBillingSchemaView(s, configurations, metrics, form)),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
  };
}

/** Products and schemas keyed by id, each in its single-read form, for invoice expansions. */
export function toProductsByIds(
  products: readonly ProductRow[],
  schemas: readonly SchemaRow[],
  configurations: readonly ConfigurationRow[],
  metrics: ReadonlyMap<string, MetricRow>,
  requestedSchemaIds: readonly string[],
): ProductsByIds {
  const out: ProductsByIds = { products: {}, schemas: {} };
  for (const product of products) out.products[product.id] = toProductView(product, schemas, configurations, metrics, 'integer');
  const wanted = new Set(requestedSchemaIds);
  for (const schema of schemas) {
    if (wanted.has(schema.id)) out.schemas[schema.id] = toBillingSchemaView(schema, configurations, metrics, 'integer');
  }
  return out;
}

/** What pricing needs of a product and a schema; null when either is missing. */
export function toPricingSchema(product: ProductRow | null, schema: SchemaRow | null): PricingSchema | null {
  if (!product || !schema) return null;
  return {
    productId: product.id,
    productName: product.name,
    productActive: product.isActive,
    schemaId: schema.id,
    schemaName: schema.name,
    schemaActive: schema.isActive,
    schemaOfProduct: schema.productId === product.id,
    type: schema.type,
    currency: schema.currency,
    basePrice: schema.basePrice,
  };
}
