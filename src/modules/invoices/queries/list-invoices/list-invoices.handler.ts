import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { invoiceView } from '../../dto/invoice.views';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoicePage, ListInvoicesQuery } from './list-invoices.query';

@QueryHandler(ListInvoicesQuery)
export class ListInvoicesHandler implements IQueryHandler<ListInvoicesQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
  ) {}

  async execute({ scope, filter }: ListInvoicesQuery): Promise<InvoicePage> {
    const { rows, total } = await this.repo.list(this.tx.manager, scope, filter);
    return {
      items: rows.map((r) => invoiceView(r, false)),
      total,
      limit: filter.limit,
      offset: filter.offset,
      has_more: filter.offset + rows.length < total,
    };
  }
}
