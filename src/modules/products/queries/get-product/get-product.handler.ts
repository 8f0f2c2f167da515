import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { toProductView } from '../../dto/product-view.mapper';
import type { ProductView } from '../../dto/product.view';
import { CatalogRepository } from '../../persistence/catalog.repository';
import { ProductGraphReader } from '../../persistence/product-graph.reader';
import { ProductImages } from '../product-images';
import { GetProductQuery } from './get-product.query';

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductGraphReader) private readonly reader: ProductGraphReader,
    @Inject(ProductImages) private readonly images: ProductImages,
  ) {}

  async execute({ scope, productId }: GetProductQuery): Promise<ProductView> {
    // One snapshot, so a replace committing meanwhile cannot mix two versions in the answer.
    const view = await this.tx.readSnapshot(scope, async (m) => {
      const product = await this.repo.findProduct(m, scope, productId);
      if (!product) throw new NotFoundError('product');
      const graph = await this.reader.load(m, scope, [product]);
      return toProductView(product, graph.schemas, graph.configurations, graph.metrics, 'integer');
    });
    await this.images.fill(scope, [view]);
    return view;
  }
}
