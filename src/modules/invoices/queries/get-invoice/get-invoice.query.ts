import { Query } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import type { Expansion } from '../../domain/payer-view';
import type { InvoiceView } from '../../dto/invoice.views';
import type { InvoiceAccess } from '../../persistence/invoices.repository';

/**
 * One invoice with the requested expansions. `access` null = a payer without a key: the payer
 * view (no metadata, masked email, payer expansions only). `summaryCurrency` adds `summary`.
 */
export class GetInvoiceQuery extends Query<InvoiceView> {
  constructor(
    readonly access: InvoiceAccess,
    readonly invoiceId: string,
    readonly expand: Expansion[],
    readonly summaryCurrency: Currency | null,
  ) {
    super();
  }
}
