import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

/** A provider the configured rails of a mode can carry a payout on (a refund sent from the merchant's own wallet). */
export interface PayoutRail {
  providerId: string;
  /** The chain family whose payout this is (its payment-URI standard and transaction ids follow it). */
  family: 'evm' | 'utxo';
  /** Network slug of CHAINS_FILE (ethereum, polygon, bsc, bitcoin, litecoin...). */
  network: string;
  /** The EVM chain id (EIP-155); null on UTXO chains, which have none. */
  chainId: number | null;
  /** Token contract (lower case) on the configured chain; null for the network's coin. */
  token: string | null;
}

/** The providers CHAINS_FILE's rails carry in the mode (no wallet needed: the merchant sends from their own). */
export class ListPayoutRailsQuery extends Query<PayoutRail[]> {
  constructor(readonly mode: Mode) {
    super();
  }
}

/** One transfer of a payout transaction to the destination: `output` names it in the transaction (`native`, a log index, an output number). */
export interface PayoutTransferSeen {
  output: string;
  /** Smallest units, as a decimal string. */
  units: string;
}

/**
 * What the chain says of a reported payout transaction:
 * - `unavailable`: the mode has no rail for the network, or its node does not answer (ask again later);
 * - `unknown`: the node does not know the hash; `showsUnmined` says whether it would show an unmined
 *   one (then the hash is no transaction of the chain as far as it knows);
 * - `pending`: the node knows it, not mined yet;
 * - `failed`: mined and reverted;
 * - `mined`: its block, confirmations (1 in the block that mined it) and each of its transfers that pays
 *   the destination `to` in the asked coin or token (units summed in `paidUnits`).
 */
export type PayoutCheck =
  | { state: 'unavailable' }
  | { state: 'unknown'; showsUnmined: boolean }
  | { state: 'pending' }
  | { state: 'failed'; confirmations: number; blockNumber: string }
  | { state: 'mined'; confirmations: number; blockNumber: string; paidUnits: string; transfers: PayoutTransferSeen[] };

export class CheckPayoutQuery extends Query<PayoutCheck> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly txHash: string,
    /** Destination address (any case). */
    readonly to: string,
    /** Token contract, or null for the network's coin. */
    readonly token: string | null,
  ) {
    super();
  }
}

/**
 * The height of the network's chain tip as its node says now (a decimal string), or null when the mode
 * has no rail for the network or its node does not answer. A refund records it when the payer names the
 * destination: its payout must be mined in a later block.
 */
export class PayoutChainTipQuery extends Query<string | null> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
  ) {
    super();
  }
}
