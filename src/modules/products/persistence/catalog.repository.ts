import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { BillingConfigurationRecord } from './billing-configuration.record';
import { BillingSchemaRecord } from './billing-schema.record';
import { MetricRecord } from './metric.record';
import { ProductRecord } from './product.record';

export interface ProductPage {
  limit: number;
  offset: number;
  includeInactive: boolean;
}

/** Every read and write of the catalog tables, always within one organization and mode. */
@Injectable()
export class CatalogRepository {
  findProduct(m: EntityManager, scope: Scope, id: string): Promise<ProductRecord | null> {
    return m.findOne(ProductRecord, { where: { id, organizationId: scope.organizationId, mode: scope.mode } });
  }

  /** Reads and locks a product version, so concurrent replaces of it run one after the other. */
  findProductForUpdate(m: EntityManager, scope: Scope, id: string): Promise<ProductRecord | null> {
    return m.findOne(ProductRecord, {
      where: { id, organizationId: scope.organizationId, mode: scope.mode },
      lock: { mode: 'pessimistic_write' },
    });
  }

  findProducts(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<ProductRecord[]> {
    if (!ids.length) return Promise.resolve([]);
    return m.find(ProductRecord, { where: { id: In([...ids]), organizationId: scope.organizationId, mode: scope.mode } });
  }

  listProducts(m: EntityManager, scope: Scope, page: ProductPage): Promise<ProductRecord[]> {
    return m.find(ProductRecord, {
      where: { organizationId: scope.organizationId, mode: scope.mode, ...(page.includeInactive ? {} : { isActive: true }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  findSchema(m: EntityManager, scope: Scope, id: string): Promise<BillingSchemaRecord | null> {
    return m.findOne(BillingSchemaRecord, { where: { id, organizationId: scope.organizationId, mode: scope.mode } });
  }

  findSchemas(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<BillingSchemaRecord[]> {
    if (!ids.length) return Promise.resolve([]);
    return m.find(BillingSchemaRecord, { where: { id: In([...ids]), organizationId: scope.organizationId, mode: scope.mode } });
  }

  schemasOfProducts(m: EntityManager, scope: Scope, productIds: readonly string[]): Promise<BillingSchemaRecord[]> {
    if (!productIds.length) return Promise.resolve([]);
    return m.find(BillingSchemaRecord, {
      where: { productId: In([...productIds]), organizationId: scope.organizationId, mode: scope.mode },
      order: { position: 'ASC' },
    });
  }

  configurationsOfSchemas(m: EntityManager, scope: Scope, schemaIds: readonly string[]): Promise<BillingConfigurationRecord[]> {
    if (!schemaIds.length) return Promise.resolve([]);
    return m.find(BillingConfigurationRecord, {
      where: { schemaId: In([...schemaIds]), organizationId: scope.organizationId, mode: scope.mode },
      order: { position: 'ASC' },
    });
  }

  findMetrics(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<MetricRecord[]> {
    if (!ids.length) return Promise.resolve([]);
    return m.find(MetricRecord, { where: { id: In([...ids]), organizationId: scope.organizationId, mode: scope.mode } });
  }

  findMetricsByKeys(m: EntityManager, scope: Scope, keys: readonly string[]): Promise<MetricRecord[]> {
    if (!keys.length) return Promise.resolve([]);
    return m.find(MetricRecord, { where: { metricKey: In([...keys]), organizationId: scope.organizationId, mode: scope.mode } });
  }

  /** Creates the metric unless one with its key exists already (a concurrent writer may have made it). */
  async insertMetricIfAbsent(m: EntityManager, metric: MetricRecord): Promise<void> {
    await m.query(
      `INSERT INTO metrics (id, organization_id, mode, metric_key, name, aggregation_type, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
       ON CONFLICT (organization_id, mode, metric_key) DO NOTHING`,
      [metric.id, metric.organizationId, metric.mode, metric.metricKey, metric.name, metric.aggregationType, metric.createdAt],
    );
  }

  async insertProduct(m: EntityManager, product: ProductRecord): Promise<void> {
    await m.insert(ProductRecord, product);
  }

  async insertSchemas(m: EntityManager, schemas: BillingSchemaRecord[]): Promise<void> {
    if (schemas.length) await m.insert(BillingSchemaRecord, schemas);
  }

  async insertConfigurations(m: EntityManager, configurations: BillingConfigurationRecord[]): Promise<void> {
    if (configurations.length) await m.insert(BillingConfigurationRecord, configurations);
  }

  /** Marks a product version, its schemas and their configurations inactive. */
  async deactivateVersion(m: EntityManager, scope: Scope, productId: string, at: Date): Promise<void> {
    const params = [productId, scope.organizationId, scope.mode, at];
    await m.query(
      `UPDATE billing_configurations c SET is_active = false, updated_at = $4
         FROM billing_schemas s
        WHERE c.schema_id = s.id AND s.product_id = $1 AND s.organization_id = $2 AND s.mode = $3
          AND c.organization_id = $2 AND c.mode = $3`,
      params,
    );
    await m.query(`UPDATE billing_schemas SET is_active = false, updated_at = $4 WHERE product_id = $1 AND organization_id = $2 AND mode = $3`, params);
    await m.query(`UPDATE products SET is_active = false, updated_at = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3`, params);
  }
}
