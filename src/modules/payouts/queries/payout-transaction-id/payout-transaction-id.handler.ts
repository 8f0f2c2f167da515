import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { PayoutTransactionIdQuery } from '../../../rails';
import { CheckPayoutTransactionIdQuery, TransactionIdCheck } from './payout-transaction-id.query';

@QueryHandler(CheckPayoutTransactionIdQuery)
export class CheckPayoutTransactionIdHandler implements IQueryHandler<CheckPayoutTransactionIdQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  execute({ mode, network, text }: CheckPayoutTransactionIdQuery): Promise<TransactionIdCheck> {
    return this.queries.execute(new PayoutTransactionIdQuery(mode, network, text));
  }
}
