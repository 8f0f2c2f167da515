import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreateProductHandler } from './commands/create-product/create-product.handler';
import { ProductEvents } from './commands/product-events';
import { ProductWriter } from './commands/product-writer';
import { ReplaceProductHandler } from './commands/replace-product/replace-product.handler';
import { BillingConfigurationRecord } from './persistence/billing-configuration.record';
import { BillingSchemaRecord } from './persistence/billing-schema.record';
import { CatalogRepository } from './persistence/catalog.repository';
import { MetricRecord } from './persistence/metric.record';
import { ProductGraphReader } from './persistence/product-graph.reader';
import { ProductRecord } from './persistence/product.record';
import { ProductsController } from './products.controller';
import { GetPricingSchemaHandler } from './queries/get-pricing-schema/get-pricing-schema.handler';
import { GetProductHandler } from './queries/get-product/get-product.handler';
import { GetProductsByIdsHandler } from './queries/get-products-by-ids/get-products-by-ids.handler';
import { ProductImages } from './queries/product-images';
import { ListProductsHandler } from './queries/list-products/list-products.handler';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/**
 * The catalog: products with billing schemas and usage tiers, as versioned records. Other modules
 * read it through GetPricingSchemaQuery and GetProductsByIdsQuery on the query bus.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ProductRecord, BillingSchemaRecord, BillingConfigurationRecord, MetricRecord])],
  controllers: [ProductsController],
  providers: [
    CatalogRepository,
    ProductGraphReader,
    ProductWriter,
    ProductEvents,
    ProductImages,
    CreateProductHandler,
    ReplaceProductHandler,
    GetProductHandler,
    ListProductsHandler,
    GetPricingSchemaHandler,
    GetProductsByIdsHandler,
  ],
})
export class ProductsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly catalog: CatalogRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('product', 'product_not_found', async (scope, id) => (await this.catalog.findProduct(this.tx.manager, scope, id)) !== null);
  }
}
