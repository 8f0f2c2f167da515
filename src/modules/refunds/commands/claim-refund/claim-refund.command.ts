import { Command } from '@nestjs/cqrs';
import type { RefundClaimView } from '../../dto/refund.views';

/**
 * The payer names where the refund goes (no key: the claim token is the capability). The address is
 * checked for the provider's network and the coin amount fixed at the refund's rates.
 */
export class ClaimRefundCommand extends Command<RefundClaimView> {
  constructor(
    readonly token: string,
    readonly providerId: string,
    readonly address: string,
  ) {
    super();
  }
}
