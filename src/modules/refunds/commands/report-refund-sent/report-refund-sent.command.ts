import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundView } from '../../dto/refund.views';

/**
 * The merchant reports the transaction that pays the refund. The node must know it (else
 * TxNotFoundError, where the node shows unmined transactions); once mined it must be in a block after
 * the claim's tip and pay the destination at least the payout through transfers no other refund holds
 * (else PayoutMismatchError); the refunds worker then counts its confirmations to COMPLETED.
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
