import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { ProductWriter } from '../product-writer';
import { CreateProductCommand, ProductIdResult } from './create-product.command';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProductWriter) private readonly writer: ProductWriter,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, input }: CreateProductCommand): Promise<ProductIdResult> {
    const now = this.clock.now();
    const id = await this.tx.run((m) => this.writer.write(m, scope, input, now, null));
    return { id };
  }
}
