import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { EventOutbox } from '../../../shared/events/outbox';
import { toProductView } from '../dto/product-view.mapper';
import type { ProductView } from '../dto/product.view';
import { CatalogRepository } from '../persistence/catalog.repository';
import { ProductGraphReader } from '../persistence/product-graph.reader';
import { ProductImages } from '../queries/product-images';
import { PRODUCT_EVENTS } from '../events/product.events';

/**
 * Records the catalog's events in the writer's transaction, with the product as
 * `GET /products/{id}` renders it.
 */
@Injectable()
export class ProductEvents {
  constructor(
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductGraphReader) private readonly reader: ProductGraphReader,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(ProductImages) private readonly images: ProductImages,
  ) {}

  async view(m: EntityManager, scope: Scope, productId: string): Promise<ProductView> {
    const product = await this.repo.findProduct(m, scope, productId);
    if (!product) throw new Error(`product ${productId} vanished inside its own transaction`);
    const graph = await this.reader.load(m, scope, [product]);
    const view = toProductView(product, graph.schemas, graph.configurations, graph.metrics, 'integer');
    await this.images.fill(scope, [view], m);
    return view;
  }

  async created(m: EntityManager, scope: Scope, productId: string): Promise<void> {
    await this.outbox.record(m, scope, PRODUCT_EVENTS['product.created'], await this.view(m, scope, productId));
  }

  /** A replace wrote a new version: the event carries it, and the replaced version's differing fields. */
  async replaced(m: EntityManager, scope: Scope, before: ProductView, productId: string): Promise<void> {
    const after = await this.view(m, scope, productId);
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(before)) {
      if (JSON.stringify(value) !== JSON.stringify((after as unknown as Record<string, unknown>)[key])) previous[key] = value;
    }
    await this.outbox.record(m, scope, PRODUCT_EVENTS['product.updated'], after, { previousAttributes: previous });
  }
}
