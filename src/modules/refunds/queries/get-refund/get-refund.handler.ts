import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { RefundView, refundView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { GetRefundQuery } from './get-refund.query';

@QueryHandler(GetRefundQuery)
export class GetRefundHandler implements IQueryHandler<GetRefundQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ scope, refundId }: GetRefundQuery): Promise<RefundView> {
    const row = await this.refunds.find(this.tx.readsFor(scope), scope, refundId);
    if (!row) throw new NotFoundError('refund');
    return refundView(row);
  }
}
