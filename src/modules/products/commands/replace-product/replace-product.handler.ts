import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { ProductVersionInactiveError } from '../../domain/catalog.errors';
import { CatalogRepository } from '../../persistence/catalog.repository';
import type { ProductIdResult } from '../create-product/create-product.command';
import { ProductEvents } from '../product-events';
import { ProductWriter } from '../product-writer';
import { ReplaceProductCommand } from './replace-product.command';

/**
 * Writes a new version in one transaction: the replaced version is locked first, so of two
 * concurrent replaces of it the second waits, then finds it inactive and is refused.
 */
@CommandHandler(ReplaceProductCommand)
export class ReplaceProductHandler implements ICommandHandler<ReplaceProductCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CatalogRepository) private readonly repo: CatalogRepository,
    @Inject(ProductWriter) private readonly writer: ProductWriter,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ProductEvents) private readonly events: ProductEvents,
  ) {}

  async execute({ scope, productId, input }: ReplaceProductCommand): Promise<ProductIdResult> {
    const id = await this.tx.run(async (m) => {
      const product = await this.repo.findProductForUpdate(m, scope, productId);
      if (!product) throw new NotFoundError('product');
      if (!product.isActive) throw new ProductVersionInactiveError();
      const schemas = await this.repo.schemasOfProducts(m, scope, [product.id]);
      const configurations = await this.repo.configurationsOfSchemas(
        m,
        scope,
        schemas.map((s) => s.id),
      );
      const now = this.clock.now();
      const before = await this.events.view(m, scope, product.id);
      await this.repo.deactivateVersion(m, scope, product.id, now);
      const replaced = await this.writer.write(m, scope, input, now, { product, schemas, configurations });
      await this.events.replaced(m, scope, before, replaced);
      return replaced;
    });
    return { id };
  }
}
