import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { invoiceView } from '../../dto/invoice.views';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { InvoicePage, ListInvoicesQuery } from './list-invoices.query';

@QueryHandler(ListInvoicesQuery)
export class ListInvoicesHandler implements IQueryHandler<ListInvoicesQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ scope, filter }: ListInvoicesQuery): Promise<InvoicePage> {
    const now = this.clocks.now();
    const { rows, total } = await this.repo.list(this.tx.manager, scope, filter, { now, monitoringMinutes: this.clocks.monitoringMinutes });
    return {
      items: rows.map((r) => invoiceView(this.clocks.current(r, now), false, this.clocks.monitoringMinutes)),
      total,
      limit: filter.limit,
      offset: filter.offset,
      has_more: filter.offset + rows.length < total,
    };
  }
}
