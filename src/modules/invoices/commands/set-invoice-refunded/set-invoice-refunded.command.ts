import { Command } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Amount } from '../../../../shared/money/money';

/**
 * Sets the invoice's `refunded_usd` (the USD value of its COMPLETED refunds), in the caller's unit
 * of work: the refunds module sends it in the transaction that completes a refund. The invoice's
 * status and updated_at do not change. NotFoundError when the invoice is not in the scope.
 */
export class SetInvoiceRefundedCommand extends Command<void> {
  constructor(
    readonly unitOfWork: EntityManager,
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly refundedUsd: Amount,
  ) {
    super();
  }
}
