import type { Amount } from '../../../shared/money/money';
import { Money, ZERO } from '../../../shared/money/money';
import type { PaymentStatus } from './payment-status';

/** What settling an invoice needs to know of one of its payments. */
export interface SettlingPayment {
  id: string;
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
}

/** Where an invoice's payments leave it: what the invoice's lifecycle table decides its state from. */
export interface Settlement {
  /** Exact sum of price_usd of the COMPLETED payments. */
  completedUsd: Amount;
  /** Sum of unitUsd of the COMPLETED payments: how far rounding each amount due up may take them beyond the price. */
  roundingUsd: Amount;
  /** Provider kind of the newest (created last) still-PENDING payment; null when none is pending. */
  pendingKind: 'crypto' | 'fiat' | null;
  /** A COMPLETED payment happened after the invoice's expiry (never for an invoice that does not expire). */
  paidLate: boolean;
  /**
   * A chain report moved a payment (a reorg reversed or reinstated it): a COMPLETED invoice then
   * shows in its substatus whether its payments still cover it (docs/payments.md, "Chain reversals").
   */
  chainMove?: boolean;
}

/**
 * Settles an invoice from all its payments (the invoice locked by the caller, so the list is
 * complete): what they paid, whether one is still under way and with which kind of provider, and
 * whether one came late. Pure: the same payments always give the same settlement.
 */
export function settle(payments: readonly SettlingPayment[], expiresAt: Date | null): Settlement {
  let completedUsd = ZERO;
  let roundingUsd = ZERO;
  let newestPending: SettlingPayment | null = null;
  let paidLate = false;
  for (const p of payments) {
    if (p.status === 'COMPLETED') {
      completedUsd = completedUsd.add(p.priceUsd);
      roundingUsd = roundingUsd.add(p.unitUsd);
      if (expiresAt && p.happenedAt.getTime() > expiresAt.getTime()) paidLate = true;
    } else if (p.status === 'PENDING' && (!newestPending || isNewer(p, newestPending))) {
      newestPending = p;
    }
  }
  return { completedUsd, roundingUsd, pendingKind: newestPending?.providerKind ?? null, paidLate };
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
