import { Command, Query } from '@nestjs/cqrs';
import type { ClaimMethodView } from '../queries/list-payout-methods/list-payout-methods.query';

/**
 * The claim routes' port (docs/payouts.md, "Destination claims"): the claim page and the keyless
 * claim routes are this module's, the thing claimed is the module above's (a refund today). Payouts
 * owns these queries and commands and never names that module; the owner of the claim tokens (refunds)
 * answers them, on the buses.
 */

/** The states a claim goes through, as its page shows them (the refund's statuses today). */
export const CLAIM_STATUSES = ['AWAITING_DESTINATION', 'AWAITING_PAYOUT', 'SENT', 'COMPLETED', 'CANCELED', 'EXPIRED'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** The payout as the payer sees it, fixed when the destination was given. */
export interface ClaimPayoutView {
  provider_id: string;
  network: string;
  currency: string;
  address: string;
  amount: string;
  /** Null on a chain with no payment-URI standard (Tron). */
  uri: string | null;
}

/** The claim as the payer sees it (no key: the token is the capability); no reason, no invoice internals. */
export interface PayoutClaimView {
  status: string;
  amount: string;
  currency: string;
  amount_usd: string;
  expires_at: string;
  methods: ClaimMethodView[];
  payout: ClaimPayoutView | null;
}

/** What the claim page says of whom the payout is from and for what (payer-safe: the merchant's name, the invoice's id and items). */
export interface ClaimContextView {
  merchant: { name: string };
  invoice: { id: string; items: Array<{ name: string | null; quantity: number }> };
}

export type PayoutClaimState = PayoutClaimView & ClaimContextView & { mode: 'test' | 'live' };

/** A claim as its payer sees it through the token (null: no such claim), with the methods offered, the merchant and the invoice. */
export class GetPayoutClaimQuery extends Query<PayoutClaimState | null> {
  constructor(readonly token: string) {
    super();
  }
}

/**
 * The payer names where the payout goes (no key: the claim token is the capability). The answerer
 * checks the destination with CheckPayoutDestinationQuery, fixes the amount and asks PayoutRequestQuery.
 */
export class ClaimPayoutCommand extends Command<PayoutClaimView> {
  constructor(
    readonly token: string,
    readonly providerId: string,
    readonly address: string,
  ) {
    super();
  }
}

export const SIMULATED_PAYOUT_RESULTS = ['paid', 'short'] as const;
export type SimulatedPayoutResult = (typeof SIMULATED_PAYOUT_RESULTS)[number];

/** What the claim page's test control did: the claim after it, and the answer's message. */
export interface SimulatedClaimPayout {
  claim: PayoutClaimView;
  message: string;
}

/** Test mode only: the claim page's test control finishes the payout as if the chain had seen it (a live claim is not found). */
export class SimulateClaimPayoutCommand extends Command<SimulatedClaimPayout> {
  constructor(
    readonly token: string,
    readonly result: SimulatedPayoutResult,
  ) {
    super();
  }
}
