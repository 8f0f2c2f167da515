import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundRow } from '../../persistence/refunds.repository';

import type { SimulatedPayoutResult } from '../../../payouts';

export type { SimulatedPayoutResult };

/**
 * Which refund: the merchant's (its test key's scope and the refund id) or the payer's (the claim
 * token, the claim page's test control).
 */
export type SimulatedPayoutTarget = { scope: Scope; refundId: string } | { token: string };

/** What a simulated payout did: the refund after it, and the mismatch a short one recorded. */
export interface SimulatedPayout {
  row: RefundRow;
  /** The payout_mismatch reason of a short payout (null when paid, or repeated on a completed refund). */
  mismatch: string | null;
}

/** The answer's message: what the simulated payout did (a short one names its payout_mismatch). */
export function simulatedMessage(done: SimulatedPayout): string {
  return done.mismatch ? `Simulated payout taken back (payout_mismatch): ${done.mismatch}` : 'Simulated payout completed the refund';
}

/**
 * Test mode only (decisions §19, "Test mode"): finishes a refund's payout as if the chain had seen it,
 * for a network without a test rail (or any test refund). `paid`: AWAITING_PAYOUT (or SENT) -> COMPLETED
 * as a confirmed payout completes it (refund.updated for the report, refund.completed, the invoice's
 * refunded_usd); `short`: the payout is taken back to AWAITING_PAYOUT as a short one is (refund.updated,
 * payout_mismatch logged). `paid` on a refund already COMPLETED answers it as it is. Live refunds and
 * unknown ones: NotFoundError; other states: InvalidStateTransitionError.
 */
export class SimulateRefundPayoutCommand extends Command<SimulatedPayout> {
  constructor(
    readonly target: SimulatedPayoutTarget,
    readonly result: SimulatedPayoutResult,
  ) {
    super();
  }
}
