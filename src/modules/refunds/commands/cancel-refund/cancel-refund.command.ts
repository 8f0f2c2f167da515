import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundView } from '../../dto/refund.views';

/** The merchant withdraws a refund not yet sent (AWAITING_DESTINATION or AWAITING_PAYOUT); its amount is refundable again. */
export class CancelRefundCommand extends Command<RefundView> {
  constructor(
    readonly scope: Scope,
    readonly refundId: string,
  ) {
    super();
  }
}
