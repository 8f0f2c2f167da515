import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';
import type { ItemInput } from '../domain/calculation';

/** An invoice's items as written, and the rates snapshot its rate lock holds now (null once it ended or without one). */
export interface InvoiceItemsForQuote {
  items: ItemInput[];
  heldRatesSnapshotId: string | null;
}

/**
 * The items of an invoice as they were written, for quoting an existing invoice (`invoice_id`): while
 * its rate lock holds, at its own rates, as its payments are valued and its payment addresses priced.
 * Quotes asks; the invoices module registers the handler (so quotes never imports invoices).
 * Null when the invoice is not found in scope.
 */
export class GetInvoiceItemsQuery extends Query<InvoiceItemsForQuote | null> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
  ) {
    super();
  }
}
