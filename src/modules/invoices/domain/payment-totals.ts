import type { Amount } from '../../../shared/money/money';
import { ZERO } from '../../../shared/money/money';

/**
 * The one summary of an invoice's payments (USD values, exact), declared here and filled by the module
 * that owns payments when it settles an invoice (PayableInvoices.settle): payments report what their
 * payments add up to, and the invoice's lifecycle table (invoice-status.ts) decides the state from it.
 */
export interface PaymentTotals {
  /** price_usd of the COMPLETED payments. */
  paid: Amount;
  /** price_usd of the payments still under way (PENDING). */
  pending: Amount;
  /**
   * USD value of the invoice's COMPLETED refunds (`refunded_usd`). Payments report zero (they do not see
   * refunds); invoices fill it from their own column when they settle. A refund never changes the status.
   */
  refunded: Amount;
  /** price_usd of the payments a chain reorg took back off the chain (cancelled by the rail, not by anyone). */
  reversed: Amount;
  /**
   * How far the paid total may exceed the price from rounding alone: each amount due is rounded up to
   * its currency's smallest unit, so paying it exactly is not an overpayment.
   */
  rounding: Amount;
  /**
   * Kind of the provider of the newest still-PENDING payment whose provider the catalog still has; null when
   * none is pending, or only through providers it no longer has (their kind is not known).
   */
  pendingKind: 'crypto' | 'fiat' | null;
  /** A COMPLETED payment happened after the invoice's expires_at. */
  paidLate: boolean;
  /**
   * price_usd of the COMPLETED payments that happened by expires_at (all of them without an expiry): when
   * these alone cover the invoice it was paid on time, whatever came later (money over, not a late payment).
   */
  paidOnTime: Amount;
  /** The providers (catalog ids) the invoice's payments went through, any status: the list's provider filter reads them. */
  providers: readonly string[];
  /** This write was a chain report moving a payment (a reorg reversing or reinstating it). */
  chainMove: boolean;
}

/** An invoice without payments. */
export const NO_PAYMENTS: PaymentTotals = {
  paid: ZERO,
  pending: ZERO,
  refunded: ZERO,
  reversed: ZERO,
  rounding: ZERO,
  pendingKind: null,
  paidLate: false,
  paidOnTime: ZERO,
  providers: [],
  chainMove: false,
};

/** The providers list with those of `reported` it lacks, sorted; null when it lacks none (nothing to write). */
export function grownProviders(stored: readonly string[], reported: readonly string[]): string[] | null {
  const known = new Set(stored);
  if (reported.every((p) => known.has(p))) return null;
  return [...new Set([...stored, ...reported])].sort();
}
