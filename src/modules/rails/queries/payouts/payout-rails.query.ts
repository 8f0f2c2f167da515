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

/**
 * What the chain says of a reported payout transaction: `unknown` when the node has not seen it
 * mined (yet), `failed` when it reverted, else the transfers it made to `to` of the asked coin or
 * token, in smallest units, and its confirmations (1 in the block that mined it). `unavailable` when
 * the mode has no rail for the network or its node does not answer.
 */
export type PayoutCheck =
  { state: 'unavailable' } | { state: 'unknown' } | { state: 'failed'; confirmations: number } | { state: 'mined'; confirmations: number; paidUnits: string };

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
