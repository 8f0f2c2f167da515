import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { toProductsByIds } from '../../dto/product-view.mapper';
import { CatalogRepository } from '../../persistence/catalog.repository';
import { ProductGraphReader } from '../../persistence/product-graph.reader';
import { ProductImages } from '../product-images';
import { GetProductsByIdsQuery, ProductsByIds } from './get-products-by-ids.query';

@QueryHandler(GetProductsByIdsQuery)
export class GetProductsByIdsHandler implements IQueryHandler<GetProductsByIdsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductGraphReader) private readonly reader: ProductGraphReader,
    @Inject(ProductImages) private readonly images: ProductImages,
  ) {}

  async execute({ scope, productIds, schemaIds }: GetProductsByIdsQuery): Promise<ProductsByIds> {
    const uniqueProducts = [...new Set(productIds)];
    const uniqueSchemas = [...new Set(schemaIds)];
    if (!uniqueProducts.length && !uniqueSchemas.length) return { products: {}, schemas: {} };
    const found = await this.tx.readSnapshot(scope, async (m) => {
      const products = await this.repo.findProducts(m, scope, uniqueProducts);
      const schemas = await this.repo.findSchemas(m, scope, uniqueSchemas);
      const graph = await this.reader.load(m, scope, products, schemas);
      return toProductsByIds(graph.products, graph.schemas, graph.configurations, graph.metrics, uniqueSchemas);
    });
    await this.images.fill(scope, Object.values(found.products));
    return found;
  }
}
