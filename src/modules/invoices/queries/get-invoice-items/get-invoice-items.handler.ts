import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import type { ItemInput } from '../../../quotes';
import { itemInputsOf } from '../../persistence/item-inputs';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { GetInvoiceItemsQuery } from '../../../quotes';

/** The items of an invoice as written (payment intents with their id and 30-digit price), for quoting it again. */
@QueryHandler(GetInvoiceItemsQuery)
export class GetInvoiceItemsHandler implements IQueryHandler<GetInvoiceItemsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
  ) {}

  async execute({ scope, invoiceId }: GetInvoiceItemsQuery): Promise<ItemInput[] | null> {
    // Items are entity reads: the same connection (a replica's, when one may serve this read) as the invoice.
    return this.tx.readSnapshot(
      scope,
      async (m) => {
        const invoice = await this.repo.find(m, scope, invoiceId);
        return invoice ? itemInputsOf(await this.repo.items(m, invoice)) : null;
      },
      false,
    );
  }
}
