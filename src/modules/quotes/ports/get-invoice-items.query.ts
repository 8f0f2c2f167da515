import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';
import type { ItemInput } from '../domain/calculation';

/**
 * The items of an invoice as they were written, for quoting an existing invoice (`invoice_id`).
 * Quotes asks; the invoices module registers the handler (so quotes never imports invoices).
 * Null when the invoice is not found in scope.
 */
export class GetInvoiceItemsQuery extends Query<ItemInput[] | null> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
  ) {
    super();
  }
}
