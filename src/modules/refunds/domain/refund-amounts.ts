import Decimal from 'decimal.js';
import type { Currency } from '../../../shared/money/currency';
import { Amount, MONEY_SCALE, Money, roundMoney, sumAmounts, ZERO } from '../../../shared/money/money';
import { ValidationFailedError } from '../../../shared/errors/domain-error';
import { NothingToRefundError, RefundExceedsPaidError } from './refund.errors';
import { holdsRefundable, RefundStatus } from './refund-status';

/** Which rates value a refund: those the invoice was priced and paid at, or today's. */
export const REFUND_RATES = ['invoice', 'current'] as const;
export type RefundRate = (typeof REFUND_RATES)[number];

export interface PaymentValue {
  status: string;
  priceUsd: Amount;
}

/**
 * The rates snapshot a `rate: invoice` refund is valued and paid out at: the one the invoice's last
 * COMPLETED payment (by `happenedAt`; the later-listed on a tie) was valued at, so that a payer who
 * sent coins and is refunded their USD value in the same coin gets those coins back. A payment within
 * the invoice's rate lock is valued at the invoice's own snapshot, so for most invoices it is that one;
 * a payment after `expires_at` is valued at the rates of its moment, and the refund follows it.
 * `invoiceSnapshotId` when nothing is completed (the refund is then refused for nothing to refund).
 */
export function paidAtSnapshot(
  payments: readonly { status: string; ratesSnapshotId: string; happenedAt: Date }[],
  invoiceSnapshotId: string | null,
): string | null {
  let last: { ratesSnapshotId: string; happenedAt: Date } | null = null;
  for (const p of payments) {
    if (p.status === 'COMPLETED' && (!last || p.happenedAt.getTime() >= last.happenedAt.getTime())) last = p;
  }
  return last ? last.ratesSnapshotId : invoiceSnapshotId;
}

export interface RefundHold {
  status: RefundStatus;
  amountUsd: Amount;
}

/** USD already given back or promised: every refund of the invoice but the canceled and expired ones. */
export function heldUsd(refunds: readonly RefundHold[]): Amount {
  return sumAmounts(refunds.filter((r) => holdsRefundable(r.status)).map((r) => r.amountUsd));
}

/**
 * What may still be refunded, in USD: the USD value of the invoice's COMPLETED payments (at the rates
 * they were recorded at) less every refund that still holds part of it. Never below zero (a payment
 * taken back by a chain reorganization after a refund may leave less paid than refunded).
 */
export function refundableUsd(payments: readonly PaymentValue[], refunds: readonly RefundHold[]): Amount {
  const paid = sumAmounts(payments.filter((p) => p.status === 'COMPLETED').map((p) => p.priceUsd));
  const left = paid.sub(heldUsd(refunds));
  return left.isNegative() ? ZERO : left;
}

/** A refund as the release after a reversal weighs it: open ones newest first are let go. */
export interface HeldRefund extends RefundHold {
  id: string;
  createdAt: Date;
}

/**
 * The refunds to cancel when the invoice's COMPLETED payments no longer cover what its refunds hold (a
 * payment a chain reorganization took back after it was refunded): open refunds (not yet SENT: the payer
 * has not been paid), newest first, until what the rest hold is covered. Refunds already SENT or COMPLETED
 * are never among them (the money may be on its way); `uncovered` says what stays held beyond the payments.
 */
export function refundsToRelease(payments: readonly PaymentValue[], refunds: readonly HeldRefund[]): { release: string[]; uncovered: Amount } {
  const paid = sumAmounts(payments.filter((p) => p.status === 'COMPLETED').map((p) => p.priceUsd));
  let held = heldUsd(refunds);
  const release: string[] = [];
  const open = refunds
    .filter((r) => r.status === 'AWAITING_DESTINATION' || r.status === 'AWAITING_PAYOUT')
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  for (const refund of open) {
    if (!held.greaterThan(paid)) break;
    release.push(refund.id);
    held = held.sub(refund.amountUsd);
  }
  const over = held.sub(paid);
  return { release, uncovered: over.isNegative() ? ZERO : over };
}

export interface RefundRequest {
  /** In `currency`; absent: everything refundable. */
  amount: Amount | null;
  currency: Currency;
  /** USD value of one unit of `currency` at the refund's rates. */
  rateUsd: Amount;
  refundableUsd: Amount;
}

export interface PlannedRefund {
  amount: Amount;
  amountUsd: Amount;
}

/**
 * The refund's amount and its USD value. Without an amount, everything refundable, converted to the
 * currency (its USD value is then exactly the refundable amount, so a full refund never misses a
 * fraction to rounding). NothingToRefundError when nothing is left; RefundExceedsPaidError when the
 * amount is worth more than is refundable.
 */
export function planRefund(req: RefundRequest): PlannedRefund {
  if (!req.refundableUsd.greaterThan(0)) throw new NothingToRefundError();
  if (req.amount === null) {
    const amount = roundMoney(req.refundableUsd.div(req.rateUsd));
    // Worth less than the smallest amount written (30 fractional digits) of this currency: nothing to send in it.
    if (!amount.greaterThan(0)) {
      throw new ValidationFailedError({
        currency: `what is left to refund (${req.refundableUsd.toFixed()} USD) rounds to 0 ${req.currency}; refund it in another currency`,
      });
    }
    return { amount, amountUsd: req.refundableUsd };
  }
  if (!req.amount.greaterThan(0)) throw new ValidationFailedError({ amount: 'must be greater than 0' });
  const amountUsd = roundMoney(req.amount.mul(req.rateUsd));
  if (!amountUsd.greaterThan(0))
    throw new ValidationFailedError({ amount: `is worth less than 0.${'0'.repeat(29)}1 USD (it rounds to 0); give a larger amount` });
  if (amountUsd.greaterThan(req.refundableUsd)) throw new RefundExceedsPaidError(req.refundableUsd.toFixed(2, Decimal.ROUND_DOWN));
  return { amount: req.amount, amountUsd };
}

/**
 * The coin amount the merchant sends: the refund's USD value in the coin at `coinRateUsd`, rounded
 * DOWN to the coin's smallest unit. The merchant never sends more than the refund is worth (so the
 * invoice is never refunded beyond what was paid); the payer receives at most one smallest unit
 * less than the exact value (a wei, a satoshi, a millionth of a dollar token). This is the opposite
 * of a deposit address's amount, which is rounded up so that the merchant is never paid short.
 * Null when the value is less than one smallest unit.
 */
export function payoutAmount(amountUsd: Amount, coinRateUsd: Amount, decimals: number): Amount | null {
  const exact = amountUsd.div(coinRateUsd);
  const rounded = exact.toDecimalPlaces(Math.min(decimals, MONEY_SCALE), Decimal.ROUND_DOWN);
  return rounded.greaterThan(0) ? new Money(rounded) : null;
}

/** The amount in the coin's smallest unit (wei, satoshi), as an integer string. */
export function toUnits(amount: Amount, decimals: number): string {
  return amount.mul(new Money(10).pow(decimals)).toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed(0);
}

/** Units back to the coin's amount. */
export function fromUnits(units: string | bigint, decimals: number): Amount {
  return new Money(units.toString()).div(new Money(10).pow(decimals));
}
