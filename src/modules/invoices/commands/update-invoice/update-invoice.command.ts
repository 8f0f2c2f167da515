import { Command } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import type { InvoiceStatus } from '../../domain/invoice-status';
import type { InvoiceAccess } from '../../persistence/invoices.repository';

export interface InvoiceUpdated {
  id: string;
  message: string;
}

/**
 * PUT /invoices/{id}: exactly one of `status` (a merchant move; needs a key) or `currency` (while
 * PENDING; a payer without a key may do it). `access` null = a payer's call without a key.
 */
export class UpdateInvoiceCommand extends Command<InvoiceUpdated> {
  constructor(
    readonly access: InvoiceAccess,
    readonly invoiceId: string,
    readonly change: { status?: InvoiceStatus; currency?: Currency },
  ) {
    super();
  }
}
