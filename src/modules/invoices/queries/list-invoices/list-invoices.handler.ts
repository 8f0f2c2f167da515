import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
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
    const now = await this.clocks.nowFor(scope);
    const page = await this.repo.list(this.tx.readsFor(scope), scope, filter, { now, monitoringMinutes: this.clocks.monitoringMinutes });
    if (!page) throw new ValidationFailedError({ starting_after: 'is not an invoice of this organization and mode' });
    return {
      items: page.rows.map((r) => invoiceView(this.clocks.current(r, now), false, this.clocks.monitoringMinutes)),
      total: page.total,
      limit: filter.limit,
      offset: filter.offset,
      has_more: page.hasMore,
    };
  }
}
