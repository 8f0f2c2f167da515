import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { PaymentView, paymentView } from '../../dto/payment.views';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { expandProviders } from '../payment-expansion';
import { ListInvoicePaymentsQuery } from '../../../invoices';

@QueryHandler(ListInvoicePaymentsQuery)
export class ListInvoicePaymentsHandler implements IQueryHandler<ListInvoicePaymentsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
  ) {}

  async execute({ scope, invoiceId, options }: ListInvoicePaymentsQuery): Promise<PaymentView[]> {
    const rows = await this.repo.forInvoice(options.unitOfWork ?? this.tx.readsFor(scope), scope, invoiceId);
    const views = rows.map((r) => paymentView(r, options.payer ?? false));
    if (options.withProvider) await expandProviders(this.queries, scope, views);
    return views;
  }
}
