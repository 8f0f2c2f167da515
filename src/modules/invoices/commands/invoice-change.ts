import type { Command } from '@nestjs/cqrs';
import { UnauthorizedError, ValidationFailedError } from '../../../shared/errors/domain-error';
import type { Currency } from '../../../shared/money/currency';
import type { InvoiceStatus } from '../domain/invoice-status';
import type { InvoiceAccess } from '../persistence/invoices.repository';
import { ChangeInvoiceCurrencyCommand } from './change-invoice-currency/change-invoice-currency.command';
import { ChangeInvoiceStatusCommand } from './change-invoice-status/change-invoice-status.command';

/** What a status or currency change answers. */
export interface InvoiceUpdated {
  id: string;
  message: string;
}

/**
 * PUT /invoices/{id} carries one of two changes: `status` (a merchant move; needs a key) or
 * `currency` (while PENDING; a payer without a key may do it). This picks the command for the body,
 * or refuses it: both given or neither (400 validator.status), a status change without a key (401).
 * `access` null = a payer's call without a key.
 */
export function invoiceChangeCommand(
  access: InvoiceAccess,
  invoiceId: string,
  change: { status?: InvoiceStatus; currency?: Currency },
): Command<InvoiceUpdated> {
  const { status, currency } = change;
  if (status !== undefined && currency !== undefined) {
    throw new ValidationFailedError({ status: 'send either status or currency, not both' });
  }
  if (status !== undefined) {
    if (!access) throw new UnauthorizedError('Changing an invoice status needs an API key', 'missing_api_key');
    return new ChangeInvoiceStatusCommand(access, invoiceId, status);
  }
  if (currency !== undefined) return new ChangeInvoiceCurrencyCommand(access, invoiceId, currency);
  throw new ValidationFailedError({ status: 'status or currency is required' });
}
