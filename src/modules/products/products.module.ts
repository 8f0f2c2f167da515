import { Module } from '@nestjs/common';
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
import { ListProductsHandler } from './queries/list-products/list-products.handler';

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
    CreateProductHandler,
    ReplaceProductHandler,
    GetProductHandler,
    ListProductsHandler,
    GetPricingSchemaHandler,
    GetProductsByIdsHandler,
  ],
})
export class ProductsModule {}
