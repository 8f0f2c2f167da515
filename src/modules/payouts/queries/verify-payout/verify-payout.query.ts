import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { PayoutTransferSeen } from '../../../rails';
import type { PayoutVerdict, PayoutWindow } from '../../domain/payout-verdict';

export type { PayoutVerdict, PayoutWindow };

/**
 * What the chain says of a reported payout transaction, judged against the payout (decisions §19,
 * "What a payout report must prove"):
 * - `unavailable`: the mode has no rail for the network, or its node does not answer (ask again later);
 * - `unknown`: the node does not know the hash; `showsUnmined` says whether it would show an unmined one;
 * - `pending`: the node knows it, not mined yet;
 * - `judged`: mined (or mined and reverted): its `verdict`, its confirmations, and its transfers that pay
 *   the destination (empty when it failed), which a `paid` payout takes with TakePayoutTransfersCommand.
 */
export type PayoutVerification =
  | { state: 'unavailable' }
  | { state: 'unknown'; showsUnmined: boolean }
  | { state: 'pending' }
  | { state: 'judged'; verdict: PayoutVerdict; confirmations: number; transfers: PayoutTransferSeen[] };

/** A reported payout transaction against its destination and units, read on its network's chain. */
export class VerifyPayoutQuery extends Query<PayoutVerification> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly txHash: string,
    /** The destination address. */
    readonly address: string,
    /** Token contract, or null for the network's coin. */
    readonly tokenContract: string | null,
    /** The payout's smallest units, as a decimal string. */
    readonly units: string,
    readonly window: PayoutWindow,
  ) {
    super();
  }
}
