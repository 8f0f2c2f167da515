import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { RefundPage, refundView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { ListRefundsQuery } from './list-refunds.query';

@QueryHandler(ListRefundsQuery)
export class ListRefundsHandler implements IQueryHandler<ListRefundsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ scope, filter }: ListRefundsQuery): Promise<RefundPage> {
    const page = await this.refunds.list(this.tx.readsFor(scope), scope, filter);
    if (!page) throw new ValidationFailedError({ starting_after: 'is not a refund of this organization and mode' });
    return { items: page.rows.map(refundView), total: page.total, limit: filter.limit, offset: filter.offset, has_more: page.hasMore };
  }
}
