import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { InvoicePaymentValuesQuery, PaymentValue } from './invoice-payment-values.query';

@QueryHandler(InvoicePaymentValuesQuery)
export class InvoicePaymentValuesHandler implements IQueryHandler<InvoicePaymentValuesQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
  ) {}

  async execute({ scope, invoiceId, unitOfWork }: InvoicePaymentValuesQuery): Promise<PaymentValue[]> {
    // On the primary: what a refund is measured against is never read from a replica.
    const rows = await this.repo.forInvoice(unitOfWork ?? this.tx.manager, scope, invoiceId);
    return rows.map((r) => ({ status: r.status, currency: r.currency, priceUsd: r.priceUsd, ratesSnapshotId: r.ratesSnapshotId, happenedAt: r.happenedAt }));
  }
}
