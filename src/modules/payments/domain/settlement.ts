import type { Amount } from '../../../shared/money/money';
import { Money, ZERO } from '../../../shared/money/money';
import type { PaymentTotals } from '../../invoices';
import type { PaymentStatus } from './payment-status';

/** What settling an invoice needs to know of one of its payments. */
export interface SettlingPayment {
  id: string;
  providerId: string;
  status: PaymentStatus;
  priceUsd: Amount;
  /**
   * The USD value of one smallest unit of the payment's currency at the payment's rate (zero when not
   * known): an amount due is rounded up to that unit, so paying it exactly may exceed the price by less.
   */
  unitUsd: Amount;
  /** The kind of the payment's provider (from the catalog); null for a provider the catalog no longer has. */
  providerKind: 'crypto' | 'fiat' | null;
  happenedAt: Date;
  createdAt: Date;
  /** A rail reported its transaction in no block any more (a reorg took it back off the chain). */
  offChain: boolean;
}

/**
 * The totals of an invoice's payments (the invoice locked by the caller, so the list is complete), as
 * the invoices module declares them (PaymentTotals): what they paid, what is still under way and with
 * which kind of provider, what a reorg took back, and whether a payment came late. Invoices decide the
 * state from it. Pure: the same payments always give the same totals. `chainMove` is the caller's to set.
 */
export function settle(payments: readonly SettlingPayment[], expiresAt: Date | null): PaymentTotals {
  let paid = ZERO;
  let pending = ZERO;
  let reversed = ZERO;
  let rounding = ZERO;
  let newestPending: SettlingPayment | null = null;
  let paidLate = false;
  let paidOnTime = ZERO;
  const providers = new Set<string>();
  for (const p of payments) {
    providers.add(p.providerId);
    if (p.status === 'COMPLETED') {
      paid = paid.add(p.priceUsd);
      rounding = rounding.add(p.unitUsd);
      // Late by when it happened, or by when it was recorded if that is earlier (a time stamped ahead of the clock).
      if (expiresAt && Math.min(p.happenedAt.getTime(), p.createdAt.getTime()) > expiresAt.getTime()) paidLate = true;
      else paidOnTime = paidOnTime.add(p.priceUsd);
    } else if (p.status === 'PENDING') {
      pending = pending.add(p.priceUsd);
      // The newest of a kind still known: one through a provider the catalog no longer has says nothing of it.
      if (p.providerKind && (!newestPending || isNewer(p, newestPending))) newestPending = p;
    } else if (p.status === 'CANCELLED' && p.offChain) {
      reversed = reversed.add(p.priceUsd);
    }
  }
  return {
    paid,
    pending,
    refunded: ZERO,
    reversed,
    rounding,
    pendingKind: newestPending?.providerKind ?? null,
    paidLate,
    paidOnTime,
    providers: [...providers].sort(),
    chainMove: false,
  };
}

/** Newer by creation time, then by id (the order the payments list uses). */
function isNewer(a: SettlingPayment, b: SettlingPayment): boolean {
  const dt = a.createdAt.getTime() - b.createdAt.getTime();
  return dt !== 0 ? dt > 0 : a.id > b.id;
}

/** The USD value of one smallest unit (10^-decimals) of a payment of `price` worth `priceUsd`; zero when either is zero. */
export function unitValueUsd(price: Amount, priceUsd: Amount, decimals: number): Amount {
  if (price.isZero() || priceUsd.isZero()) return ZERO;
  return priceUsd.div(price).mul(new Money(10).pow(-decimals));
}
