import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { toProductView } from '../../dto/product-view.mapper';
import type { ProductView } from '../../dto/product.view';
import { CatalogRepository } from '../../persistence/catalog.repository';
import { ProductGraphReader } from '../../persistence/product-graph.reader';
import { ProductImages } from '../product-images';
import { ListProductsQuery } from './list-products.query';

@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductGraphReader) private readonly reader: ProductGraphReader,
    @Inject(ProductImages) private readonly images: ProductImages,
  ) {}

  async execute({ scope, limit, offset, includeInactive }: ListProductsQuery): Promise<ProductView[]> {
    const views = await this.tx.readSnapshot(scope, async (m) => {
      const products = await this.repo.listProducts(m, scope, { limit, offset, includeInactive });
      const graph = await this.reader.load(m, scope, products);
      return products.map((p) => toProductView(p, graph.schemas, graph.configurations, graph.metrics, 'boolean'));
    });
    await this.images.fill(scope, views);
    return views;
  }
}
