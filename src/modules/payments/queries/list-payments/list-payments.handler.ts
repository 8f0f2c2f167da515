import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { PaymentPage, paymentView } from '../../dto/payment.views';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { expandProviders } from '../payment-expansion';
import { ListPaymentsQuery } from './list-payments.query';

@QueryHandler(ListPaymentsQuery)
export class ListPaymentsHandler implements IQueryHandler<ListPaymentsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
  ) {}

  async execute({ scope, filter, expand }: ListPaymentsQuery): Promise<PaymentPage> {
    const page = await this.repo.list(this.tx.readsFor(scope), scope, filter);
    if (!page) throw new ValidationFailedError({ starting_after: 'is not a payment of this organization and mode' });
    const items = page.rows.map((r) => paymentView(r, false));
    if (expand.includes('provider')) await expandProviders(this.queries, scope, items);
    return { items, total: page.total, limit: filter.limit, offset: filter.offset, has_more: page.hasMore };
  }
}
