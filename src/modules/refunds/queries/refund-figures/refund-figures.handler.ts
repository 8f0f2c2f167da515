import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { GetRefundFiguresQuery, RefundFigures } from '../../../analytics';
import { RefundsRepository } from '../../persistence/refunds.repository';

/** Answers the dashboard's GetRefundFiguresQuery (analytics asks; refunds owns the rows). */
@QueryHandler(GetRefundFiguresQuery)
export class RefundFiguresHandler implements IQueryHandler<GetRefundFiguresQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  execute({ scope, from, to }: GetRefundFiguresQuery): Promise<RefundFigures> {
    return this.refunds.figures(this.tx.readsFor(scope), scope, from, to);
  }
}
