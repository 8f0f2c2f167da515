import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { payableOf } from '../../payable-invoices.service';
import { GetPayableInvoiceQuery, PayableInvoice } from './get-payable-invoice.query';

@QueryHandler(GetPayableInvoiceQuery)
export class GetPayableInvoiceHandler implements IQueryHandler<GetPayableInvoiceQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ access, invoiceId }: GetPayableInvoiceQuery): Promise<PayableInvoice | null> {
    const invoice = await this.repo.find(this.tx.readsFor(access), access, invoiceId);
    return invoice ? payableOf(this.clocks.current(invoice, await this.clocks.nowFor(invoice)), this.clocks.monitoringMinutes) : null;
  }
}
