import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { ChainFamily, PayoutAddressCheck, TransactionIdCheck } from '../../domain/payment-rail';

export type { PayoutAddressCheck, TransactionIdCheck };

/** A provider the configured rails of a mode can carry a payout on (a refund sent from the merchant's own wallet). */
export interface PayoutRail {
  providerId: string;
  /** The chain family whose adapter reads the payout (a registered family: evm, utxo, tron...). */
  family: ChainFamily;
  /** Network slug of CHAINS_FILE (ethereum, polygon, bsc, bitcoin, litecoin...). */
  network: string;
  /** The chain id the node's chain is numbered by (EVM, Tron); null on chains that have a name instead (UTXO). */
  chainId: number | null;
  /** Token contract on the configured chain as CHAINS_FILE keeps it (lower-case hex on EVM chains, base58 on Tron); null for the network's coin. */
  token: string | null;
}

/** The providers CHAINS_FILE's rails carry in the mode (no wallet needed: the merchant sends from their own). */
export class ListPayoutRailsQuery extends Query<PayoutRail[]> {
  constructor(readonly mode: Mode) {
    super();
  }
}

/**
 * One transfer of a payout transaction to the destination: `output` names it in the transaction (`native`, a log
 * index, an output number, Solana's `native:<wallet>`); `formerly`, the name it was held under before (Solana's
 * `native`, `spl`), which another payout holding also keeps it from this one.
 */
export interface PayoutTransferSeen {
  output: string;
  formerly?: string;
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
  | { state: 'mined'; confirmations: number; blockNumber: string; paidUnits: string; transfers: PayoutTransferSeen[]; byDestination?: boolean };

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

/** The networks a payer may name a refund address on (their slugs): those of every adapter, and of the address-only rules. */
export class PayoutNetworksQuery extends Query<string[]> {}

/**
 * A payer's refund address checked for a network (a catalog network or a slug, any case) in a mode, by
 * the network's adapter (or its address-only rule): the normalised address, or a problem naming how to
 * fix it (`refunds are not paid out on <network>` for a network nothing checks).
 */
export class CheckPayoutAddressQuery extends Query<PayoutAddressCheck> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly address: string,
  ) {
    super();
  }
}

/**
 * The payment request a merchant's wallet opens to send a refund, in the network's payment-URI standard
 * (EIP-681, BIP21); null on a chain that has none (Tron). `rail` is the payout rail the refund is read on
 * (its token), or null when the mode has none for it (test mode: a plain `<network>:<address>?amount=`).
 */
export class PayoutUriQuery extends Query<string | null> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly address: string,
    /** Smallest units, a decimal string. */
    readonly units: string,
    /** The same amount in the coin, a decimal string. */
    readonly amount: string,
    readonly rail: { token: string | null } | null,
  ) {
    super();
  }
}

/**
 * A reported payout transaction id (trimmed, lower case) checked for the form of the network's rail in
 * the mode, normalised as its node reads it; without a rail either common form is taken.
 */
export class PayoutTransactionIdQuery extends Query<TransactionIdCheck> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly txHash: string,
  ) {
    super();
  }
}
