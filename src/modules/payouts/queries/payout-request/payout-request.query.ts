import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { PayoutMethod } from '../list-payout-methods/list-payout-methods.query';

/** What the merchant is asked to send, and from when it counts. */
export interface PayoutRequest {
  /** The payment request a wallet opens (EIP-681, BIP21, ...), or null where the network has no standard. */
  uri: string | null;
  /** The chain's tip height now (decimal text): the payout must be mined after it; null without a rail (test mode: simulated). */
  claimedHeight: string | null;
}

/**
 * The payout request of a checked destination (CheckPayoutDestinationQuery) for `units` (the coin's
 * smallest units; `amount` the same in the coin, as text), and the chain's tip height now, asked of the
 * network's node: ServiceUnavailableError when a network with a rail has a node that does not answer.
 */
export class PayoutRequestQuery extends Query<PayoutRequest> {
  constructor(
    readonly mode: Mode,
    readonly method: PayoutMethod,
    readonly address: string,
    readonly units: string,
    readonly amount: string,
  ) {
    super();
  }
}
