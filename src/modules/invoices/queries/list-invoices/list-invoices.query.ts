import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { InvoiceView } from '../../dto/invoice.views';
import type { InvoiceListFilter } from '../../persistence/invoice-list';

export interface InvoicePage {
  items: InvoiceView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

/** One page of the organization's invoices in the key's mode, newest first. */
export class ListInvoicesQuery extends Query<InvoicePage> {
  constructor(
    readonly scope: Scope,
    readonly filter: InvoiceListFilter,
  ) {
    super();
  }
}
