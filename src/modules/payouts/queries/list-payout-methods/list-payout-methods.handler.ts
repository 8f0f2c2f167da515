import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PayoutMethods } from '../../payout-methods';
import { ListPayoutMethodsQuery, PayoutMethod } from './list-payout-methods.query';

@QueryHandler(ListPayoutMethodsQuery)
export class ListPayoutMethodsHandler implements IQueryHandler<ListPayoutMethodsQuery> {
  constructor(@Inject(PayoutMethods) private readonly methods: PayoutMethods) {}

  execute({ scope, invoiceId }: ListPayoutMethodsQuery): Promise<PayoutMethod[]> {
    return this.methods.forInvoice(scope, invoiceId);
  }
}
