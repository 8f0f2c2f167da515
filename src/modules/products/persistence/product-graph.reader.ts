import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { BillingConfigurationRecord } from './billing-configuration.record';
import { BillingSchemaRecord } from './billing-schema.record';
import { CatalogRepository } from './catalog.repository';
import { MetricRecord } from './metric.record';
import { ProductRecord } from './product.record';

export interface ProductGraph {
  products: ProductRecord[];
  schemas: BillingSchemaRecord[];
  configurations: BillingConfigurationRecord[];
  metrics: Map<string, MetricRecord>;
}

/** Loads products with their schemas, tiers and metrics: one query per table, whatever the count. */
@Injectable()
export class ProductGraphReader {
  constructor(@Inject(CatalogRepository) private readonly repo: CatalogRepository) {}

  async load(m: EntityManager, scope: Scope, products: ProductRecord[], extraSchemas: BillingSchemaRecord[] = []): Promise<ProductGraph> {
    const ofProducts = await this.repo.schemasOfProducts(
      m,
      scope,
      products.map((p) => p.id),
    );
    const seen = new Set(ofProducts.map((s) => s.id));
    const schemas = [...ofProducts, ...extraSchemas.filter((s) => !seen.has(s.id))];
    const configurations = await this.repo.configurationsOfSchemas(
      m,
      scope,
      schemas.map((s) => s.id),
    );
    const metrics = await this.repo.findMetrics(m, scope, [...new Set(configurations.map((c) => c.metricId))]);
    return { products, schemas, configurations, metrics: new Map(metrics.map((x) => [x.id, x])) };
  }
}
