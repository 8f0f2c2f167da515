import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../shared/auth/request-context';
import { NotFoundError } from '../../shared/errors/domain-error';
import { idempotencyScope } from '../../shared/idempotency/idempotency-scope';
import type { Currency } from '../../shared/money/currency';
import { Amount, parseAmount } from '../../shared/money/money';
import { GetProductQuery } from '../products';
import type { BillingSchemaView, ProductView } from '../products';
import type { BillingType, IntervalType, PaymentType, RenewType } from './domain/periods';
import type { AggregationType, Tier } from './domain/usage';

/** A metric a schema prices: how its events aggregate, and its tiers. */
export interface PricedMetric {
  metricKey: string;
  /** The metric's name, as its period invoice's usage line shows it. */
  name: string;
  aggregation: AggregationType;
  tiers: Tier[];
}

/** What subscriptions need of a product version and one of its billing schemas. */
export interface SubscribedSchema {
  productId: string;
  productName: string;
  schemaName: string;
  productActive: boolean;
  schemaId: string;
  schemaActive: boolean;
  type: 'ONE_TIME' | 'RECURRING';
  currency: Currency;
  basePrice: Amount;
  intervalType: IntervalType | null;
  intervalCount: number | null;
  paymentType: PaymentType | null;
  renewType: RenewType | null;
  billingType: BillingType | null;
  metrics: Map<string, PricedMetric>;
}

/** Most schemas whose metrics one process keeps (catalog versions never change, so nothing goes stale). */
const METRICS_CACHE_SIZE = 1000;

/**
 * Reads the catalog through the products module's GetProductQuery. A schema's metrics and tiers
 * are kept per process (a version never changes; editing writes a new one), so usage ingestion asks
 * the catalog once per schema and scope.
 */
@Injectable()
export class SubscriptionCatalog {
  /** A schema's metrics, worked out from a version read in some scope (derived data only). */
  private readonly metricsBySchema = new Map<string, Map<string, PricedMetric>>();
  /** What `metrics` answered a scope for its product and schema. */
  private readonly metricsInScope = new Map<string, Map<string, PricedMetric>>();

  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  /** The product version, or null when it is not in the scope. */
  async product(scope: Scope, productId: string): Promise<ProductView | null> {
    try {
      // A read: outside the request's Idempotency-Key claim, which its first transaction would mark
      // applied (and the product read is a read-only transaction).
      return await idempotencyScope.exit(() => this.queries.execute(new GetProductQuery(scope, productId)));
    } catch (e) {
      if (e instanceof NotFoundError) return null;
      throw e;
    }
  }

  /** The product and schema, or null when either is not in the scope or the schema is not the product's. */
  async schema(scope: Scope, productId: string, schemaId: string): Promise<SubscribedSchema | null> {
    const product = await this.product(scope, productId);
    return product ? this.schemaOf(product, schemaId) : null;
  }

  /** One schema of a product version read with `product`, or null when the product has no such schema. */
  schemaOf(product: ProductView, schemaId: string): SubscribedSchema | null {
    const schema = product.schemas.find((s) => s.id === schemaId);
    if (!schema) return null;
    return {
      productId: product.id,
      productName: product.name,
      schemaName: schema.name,
      productActive: product.is_active === 1 || product.is_active === true,
      schemaId: schema.id,
      schemaActive: schema.is_active === 1 || schema.is_active === true,
      type: schema.type,
      currency: schema.currency as Currency,
      basePrice: parseAmount(schema.base_price),
      intervalType: schema.interval_type as IntervalType | null,
      intervalCount: schema.interval_count,
      paymentType: schema.payment_type as PaymentType | null,
      renewType: schema.renew_type as RenewType | null,
      billingType: schema.billing_type as BillingType | null,
      metrics: this.metricsOf(schema),
    };
  }

  /**
   * The metrics a schema prices; none when the product or schema is not in the scope. Kept by scope,
   * product and schema: a schema found once for one organization's product answers only that
   * organization's mode and product, never a caller who names its id from elsewhere.
   */
  async metrics(scope: Scope, productId: string, schemaId: string): Promise<Map<string, PricedMetric>> {
    const key = `${scope.organizationId}\u0000${scope.mode}\u0000${productId}\u0000${schemaId}`;
    const cached = this.metricsInScope.get(key);
    if (cached) return cached;
    const metrics = (await this.schema(scope, productId, schemaId))?.metrics;
    if (!metrics) return new Map();
    remember(this.metricsInScope, key, metrics);
    return metrics;
  }

  private metricsOf(schema: BillingSchemaView): Map<string, PricedMetric> {
    const cached = this.metricsBySchema.get(schema.id);
    if (cached) return cached;
    const metrics = new Map<string, PricedMetric>();
    for (const config of schema.configurations) {
      if (!config.metric) continue;
      const key = config.metric.metric_key;
      const metric = metrics.get(key) ?? {
        metricKey: key,
        name: config.metric.name || key,
        aggregation: config.metric.aggregation_type as AggregationType,
        tiers: [],
      };
      metric.tiers.push({
        startsAt: parseAmount(config.starts_at),
        endsAt: config.ends_at === null ? null : parseAmount(config.ends_at),
        pricePerUnit: parseAmount(config.price_per_unit),
      });
      metrics.set(key, metric);
    }
    remember(this.metricsBySchema, schema.id, metrics);
    return metrics;
  }
}

/** Adds to a bounded cache, forgetting its oldest entry when full. */
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= METRICS_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}
