import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import type { InvoiceItemsForQuote } from '../../../quotes';
import { heldRatesSnapshot } from '../../domain/invoice-timing';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { itemInputsOf } from '../../persistence/item-inputs';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { GetInvoiceItemsQuery } from '../../../quotes';

/** The items of an invoice as written (payment intents with their id and 30-digit price) and its held rates, for quoting it again. */
@QueryHandler(GetInvoiceItemsQuery)
export class GetInvoiceItemsHandler implements IQueryHandler<GetInvoiceItemsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ scope, invoiceId }: GetInvoiceItemsQuery): Promise<InvoiceItemsForQuote | null> {
    // Items are entity reads: the same connection (a replica's, when one may serve this read) as the invoice.
    const found = await this.tx.readSnapshot(
      scope,
      async (m) => {
        const invoice = await this.repo.find(m, scope, invoiceId);
        return invoice ? { invoice, items: itemInputsOf(await this.repo.items(m, invoice)) } : null;
      },
      false,
    );
    if (!found) return null;
    return { items: found.items, heldRatesSnapshotId: heldRatesSnapshot(found.invoice, await this.clocks.nowFor(scope)) };
  }
}
