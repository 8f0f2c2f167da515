import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { ProductEvents } from '../product-events';
import { ProductWriter } from '../product-writer';
import { CreateProductCommand, ProductIdResult } from './create-product.command';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProductWriter) private readonly writer: ProductWriter,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ProductEvents) private readonly events: ProductEvents,
  ) {}

  async execute({ scope, input }: CreateProductCommand): Promise<ProductIdResult> {
    const now = this.clock.now();
    const id = await this.tx.run(async (m) => {
      const created = await this.writer.write(m, scope, input, now, null);
      await this.events.created(m, scope, created);
      return created;
    });
    return { id };
  }
}
