import { Command } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import type { InvoiceAccess } from '../../persistence/invoices.repository';
import type { InvoiceUpdated } from '../invoice-change';

/**
 * Changes a PENDING, unexpired invoice's currency: re-quotes its items at current rates and replaces
 * its calculations. `access` null = a payer without a key (capped per invoice and hour). Asking for
 * the currency it already has changes nothing.
 */
export class ChangeInvoiceCurrencyCommand extends Command<InvoiceUpdated> {
  constructor(
    readonly access: InvoiceAccess,
    readonly invoiceId: string,
    readonly currency: Currency,
  ) {
    super();
  }
}
