import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundView } from '../../dto/refund.views';

/**
 * The merchant reports the transaction that pays the refund. When the chain already shows it, it
 * must pay the destination at least the payout amount (else PayoutMismatchError); the refunds worker
 * then counts its confirmations to COMPLETED.
 */
export class ReportRefundSentCommand extends Command<RefundView> {
  constructor(
    readonly scope: Scope,
    readonly refundId: string,
    readonly txHash: string,
  ) {
    super();
  }
}
