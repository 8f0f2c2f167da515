import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { InvoiceStatus } from '../../domain/invoice-status';
import type { InvoiceUpdated } from '../invoice-change';

/**
 * A merchant moves an invoice's status (PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED
 * with substatus MARKED_PAID), under the invoice's row lock; other moves are
 * InvalidStateTransitionError (400 validator.status). Records invoice.updated (and .voided/.completed).
 */
export class ChangeInvoiceStatusCommand extends Command<InvoiceUpdated> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly status: InvoiceStatus,
  ) {
    super();
  }
}
