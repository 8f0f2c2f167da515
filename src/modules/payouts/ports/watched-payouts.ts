import { Command, Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';
import type { PayoutTransferSeen } from '../../rails';

/**
 * The payout worker's port (docs/payouts.md, "The payout worker"): the worker is this module's, the
 * payouts it watches are the module above's rows (refunds today). Payouts owns these queries and
 * commands and never names that module; the owner answers them, and moves its own states under its
 * own row locks when told an outcome.
 */

/** A payout reported sent, as the worker checks it on its chain. */
export interface SentPayout {
  id: string;
  scope: Scope;
  network: string;
  /** The destination address. */
  address: string;
  /** Token contract, or null for the network's coin. */
  tokenContract: string | null;
  /** The payout's smallest units (decimal text). */
  units: string;
  txHash: string;
  /** The chain's tip height at the claim (decimal text; null when not recorded). */
  claimedHeight: string | null;
  /** The node showed the transaction unmined after the claim. */
  seenUnmined: boolean;
  /** Since when (real time) the node does not show the transaction; null while it does. */
  missingSince: Date | null;
}

/**
 * Claims past their time without a destination are closed (the owner's EXPIRED), a fair batch: at most
 * `cap` per organization and mode, `limit` in all, least recently checked first.
 */
export class ExpireDueClaimsCommand extends Command<void> {
  constructor(
    readonly cap: number,
    readonly limit: number,
  ) {
    super();
  }
}

/**
 * The payouts reported sent, a fair batch (at most `cap` per organization and mode, `limit` in all,
 * least recently checked first), stamped checked by the answer.
 */
export class ListSentPayoutsQuery extends Query<Array<{ id: string; scope: Scope }>> {
  constructor(
    readonly cap: number,
    readonly limit: number,
  ) {
    super();
  }
}

/** One payout reported sent, as it stands now (null: not found, or no longer waiting on a transaction). */
export class GetSentPayoutQuery extends Query<SentPayout | null> {
  constructor(
    readonly scope: Scope,
    readonly id: string,
  ) {
    super();
  }
}

/**
 * What the worker found of a sent payout's transaction:
 * - `sighting`: the node shows it unmined (`seenUnmined`), or has not shown it since `missingSince`;
 * - `taken_back`: it does not pay the payout (`reason`: a verdict, or `not_seen` after the grace, when
 *   `released` keeps it watched for a while in case it is mined later);
 * - `confirmed`: it pays the payout, with its confirmations and the transfers that pay the destination
 *   (the owner takes them with TakePayoutTransfersCommand, and takes the payout back as `taken` when
 *   another payout holds them).
 */
export type PayoutCheckOutcome =
  | { kind: 'sighting'; seenUnmined: boolean; missingSince: Date | null }
  | { kind: 'taken_back'; reason: string; released: boolean }
  | { kind: 'confirmed'; confirmations: number; transfers: PayoutTransferSeen[] };

/** The outcome of a check of the sent payout `id`; the owner applies it only while the payout still waits on `txHash`. */
export class RecordPayoutCheckCommand extends Command<void> {
  constructor(
    readonly scope: Scope,
    readonly id: string,
    readonly txHash: string,
    readonly outcome: PayoutCheckOutcome,
  ) {
    super();
  }
}

/** A payout taken back after the grace, still watched in case its transaction is mined after all. */
export interface ReleasedPayout {
  id: string;
  scope: Scope;
  /** The owner's status now (logged, never changed by a late payout). */
  status: string;
  network: string;
  address: string;
  tokenContract: string | null;
  units: string;
  claimedHeight: string | null;
  txHash: string;
}

/**
 * The payouts taken back after the grace since `since`, a fair batch: at most `cap` of one organization's
 * mode, least recently checked first; those returned are stamped checked.
 */
export class ListReleasedPayoutsQuery extends Query<ReleasedPayout[]> {
  constructor(
    readonly since: Date,
    readonly cap: number,
    readonly limit: number,
  ) {
    super();
  }
}

/** Stops watching a payout taken back after the grace. */
export class ForgetReleasedPayoutCommand extends Command<void> {
  constructor(
    readonly scope: Scope,
    readonly id: string,
  ) {
    super();
  }
}
