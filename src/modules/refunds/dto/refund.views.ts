import { fromDb, renderAmount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import { claimUrl, type ClaimMethodView, type ClaimStatus, type PayoutClaimView } from '../../payouts';
import type { RefundStatus } from '../domain/refund-status';
import type { RefundRow } from '../persistence/refunds.repository';

/** Where the payer asked the refund to be sent. */
export interface RefundDestinationView {
  provider_id: string;
  network: string;
  address: string;
}

/** What the merchant sends, fixed when the payer gave the destination (decisions §19), and what the chain says of it. */
export interface RefundPayoutView {
  provider_id: string;
  network: string;
  currency: string;
  address: string;
  amount: string;
  /** Null on a chain with no payment-URI standard (Tron). */
  uri: string | null;
  tx_hash: string | null;
  confirmations: number;
  required_confirmations: number;
}

/** A refund as the merchant's API shows it. */
export interface RefundView {
  id: string;
  invoice_id: string;
  status: string;
  amount: string;
  currency: string;
  amount_usd: string;
  rate: string;
  reason: string | null;
  claim_url: string;
  expires_at: string;
  destination: RefundDestinationView | null;
  payout: RefundPayoutView | null;
  created_at: string;
  updated_at: string;
}

export interface RefundPage {
  items: RefundView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export function payoutView(r: RefundRow): RefundPayoutView | null {
  if (!r.address || !r.provider_id || !r.network || !r.payout_currency || r.payout_amount === null) return null;
  return {
    provider_id: r.provider_id,
    network: r.network.toUpperCase(),
    currency: r.payout_currency,
    address: r.address,
    amount: renderAmount(fromDb(r.payout_amount)),
    uri: r.payout_uri,
    tx_hash: r.tx_hash,
    confirmations: r.confirmations,
    required_confirmations: r.required_confirmations,
  };
}

export function refundView(r: RefundRow): RefundView {
  return {
    id: r.id,
    invoice_id: r.invoice_id,
    status: r.status,
    amount: renderAmount(fromDb(r.amount)),
    currency: r.currency,
    amount_usd: renderAmount(fromDb(r.amount_usd)),
    rate: r.rate,
    reason: r.reason,
    claim_url: claimUrl(r.claim_token),
    expires_at: formatTimestamp(r.expires_at),
    destination: r.address && r.provider_id && r.network ? { provider_id: r.provider_id, network: r.network.toUpperCase(), address: r.address } : null,
    payout: payoutView(r),
    created_at: formatTimestamp(r.created_at),
    updated_at: formatTimestamp(r.updated_at),
  };
}

export type { ClaimMethodView };

// The claim page's states (payouts' CLAIM_STATUSES) are the refund's statuses: this fails to compile when they part.
type SameStates<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const claimStatesAreRefundStatuses: SameStates<ClaimStatus, RefundStatus> = true;
void claimStatesAreRefundStatuses;

/** The claim as the payer sees it (payouts' claim contract): no reason, no invoice internals. */
export type RefundClaimView = PayoutClaimView;

export function claimView(r: RefundRow, methods: ClaimMethodView[]): RefundClaimView {
  const payout = payoutView(r);
  return {
    status: r.status,
    amount: renderAmount(fromDb(r.amount)),
    currency: r.currency,
    amount_usd: renderAmount(fromDb(r.amount_usd)),
    expires_at: formatTimestamp(r.expires_at),
    methods:
      r.status === 'AWAITING_DESTINATION' ? methods.map((m) => ({ provider_id: m.provider_id, name: m.name, network: m.network, currency: m.currency })) : [],
    payout: payout && {
      provider_id: payout.provider_id,
      network: payout.network,
      currency: payout.currency,
      address: payout.address,
      amount: payout.amount,
      uri: payout.uri,
    },
  };
}
