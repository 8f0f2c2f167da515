import Decimal from 'decimal.js';
import { Amount, fromDb, Money, renderAmount, roundMoney, sumAmounts, ZERO } from '../../../shared/money/money';
import type { DashboardWindow } from './period';

/** Payment and invoice states as the interface publishes them; every one appears in by_status. */
export const PAYMENT_STATES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const INVOICE_STATES = ['PENDING', 'COMPLETED', 'VOIDED', 'PROCESSING', 'WAITING_FOR_CONFIRMATIONS', 'PARTIALLY_PAID'] as const;
export const TOP_CUSTOMERS = 5;

/**
 * What one dashboard statement reads for a window, in the compact form it travels in: counts as
 * numbers, money as the text of numeric(78,30) values (exact, 30 fractional digits).
 */
export interface DashboardRead {
  /** Payments of the window by provider, currency and status: [provider_id, currency, status, count, sum of price_usd]. */
  payments: Array<[providerId: string, currency: string, status: string, count: number, volumeUsd: string]>;
  /** Invoices of the window by status: [status, count, sum of price_usd]. */
  invoices: Array<[status: string, count: number, priceUsdSum: string]>;
  /** Distinct customers of the window. */
  unique: number;
  /** Customers whose first invoice is in the window. */
  new: number;
  /** Already ranked (paid volume desc, then invoices desc, then email): [email, invoices_count, paid_volume_usd]. */
  top: Array<[email: string, invoicesCount: number, paidVolumeUsd: string]>;
  /** Buckets of the window that have a series row: [bucket start in epoch seconds, COMPLETED payments' volume]. */
  paymentSeries: Array<[bucket: number, volumeUsd: string]>;
  /** [bucket start in epoch seconds, invoices created]. */
  invoiceSeries: Array<[bucket: number, invoicesCount: number]>;
}

export interface DashboardInput {
  window: DashboardWindow;
  read: DashboardRead;
  /** The provider's display name (the id itself when the catalog does not know it). */
  providerName: (id: string) => string;
}

export interface DashboardView {
  period: string;
  from: string;
  to: string;
  payments: {
    count: number;
    completed_count: number;
    volume_usd: string;
    by_status: Record<string, number>;
    by_currency: Array<{ currency: string; count: number; volume_usd: string }>;
  };
  invoices: {
    count: number;
    by_status: Record<string, number>;
    paid_count: number;
    paid_volume_usd: string;
    average_price_usd: string;
    conversion_rate: string;
  };
  providers: Array<{ provider_id: string; name: string; payments_count: number; volume_usd: string; share: string }>;
  customers: {
    unique: number;
    new: number;
    returning: number;
    top: Array<{ customer_email: string; invoices_count: number; paid_volume_usd: string }>;
  };
  series: Array<{ date: string; payments_volume_usd: string; invoices_count: number }>;
  /** Filled by the query handler from the refunds module's figures (GetRefundFiguresQuery). */
  refunds?: { count: number; completed_count: number; refunded_usd: string };
  net_volume_usd?: string;
  /** Subscriptions as they stand now (asked of the subscriptions module; not windowed). */
  subscriptions?: {
    active_count: number;
    past_due_count: number;
    canceled_count: number;
    mrr_usd: string;
    mrr_by_currency: Array<{ currency: string; mrr: string; mrr_usd: string }>;
  };
}

/**
 * Quotients computed to 80 significant digits, the rest cut off. Rounding half-up at 30 fractional
 * digits only depends on the digits up to the 31st fractional one, which the cut-off quotient has
 * exactly when it has at most 49 integer digits, so rounding it gives the exactly rounded quotient,
 * with far less work than dividing to the money precision (200). The dashboard's quotients (shares,
 * conversion, mean price) are far below that; a larger one takes the general path.
 */
const Quotient = Money.clone({ precision: 80, rounding: Decimal.ROUND_DOWN });

/** part / whole rounded half-up at 30 fractional digits (whole not zero). */
export function divideRounded(part: Amount, whole: Amount): Amount {
  // The quotient has at most part.e - whole.e + 1 integer digits (e: exponent of the first digit).
  if (part.e - whole.e + 1 > 48) return roundMoney(part.div(whole));
  return roundMoney(new Quotient(part).div(new Quotient(whole)));
}

/** part / whole as a 30-digit decimal string, 0 when the whole is zero. */
export function ratio(part: Amount, whole: Amount): string {
  return renderAmount(whole.isZero() ? ZERO : divideRounded(part, whole));
}

function timestamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

const RENDERED = /^\d+\.\d{30}$/;

/**
 * Money read from a numeric(78,30) column as the response shows it. PostgreSQL writes such a value
 * with exactly 30 fractional digits, which is already the rendering (renderAmount would give the
 * same text back), so it is passed on as is; anything else goes through decimal.js.
 */
export function moneyText(text: string): string {
  return RENDERED.test(text) ? text : renderAmount(fromDb(text));
}

const ZERO_TEXT = renderAmount(ZERO);

interface Group {
  count: number;
  volume: Amount;
}

/** Volume counts COMPLETED payments only; counts count every payment of the group. */
function groupPayments(cells: DashboardRead['payments'], key: 0 | 1): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const c of cells) {
    let g = groups.get(c[key]);
    if (!g) groups.set(c[key], (g = { count: 0, volume: ZERO }));
    g.count += c[3];
    if (c[2] === 'COMPLETED') g.volume = g.volume.add(c[4]);
  }
  return groups;
}

function byVolume<T extends { volume: Amount; count: number; id: string }>(a: T, b: T): number {
  return b.volume.comparedTo(a.volume) || b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The dashboard's figures from the window's rollups (decisions §12, docs/analytics.md). */
export function buildDashboard(input: DashboardInput): DashboardView {
  const { window: w, read } = input;

  const paymentsByStatus = Object.fromEntries(PAYMENT_STATES.map((s) => [s, 0])) as Record<string, number>;
  let paymentCount = 0;
  let completedCount = 0;
  for (const [, , status, count] of read.payments) {
    paymentsByStatus[status] = (paymentsByStatus[status] ?? 0) + count;
    paymentCount += count;
    if (status === 'COMPLETED') completedCount += count;
  }
  const currencies = [...groupPayments(read.payments, 1)].map(([id, g]) => ({ id, ...g })).sort(byVolume);
  const providers = [...groupPayments(read.payments, 0)].map(([id, g]) => ({ id, ...g })).sort(byVolume);
  // Every COMPLETED payment has one provider: the providers' volumes add up to the total.
  const volume = sumAmounts(providers.map((p) => p.volume));

  const invoicesByStatus = Object.fromEntries(INVOICE_STATES.map((s) => [s, 0])) as Record<string, number>;
  let invoiceCount = 0;
  let invoiceSum: Amount = ZERO;
  let paidCount = 0;
  let paidVolume: Amount = ZERO;
  for (const [status, count, sum] of read.invoices) {
    invoicesByStatus[status] = (invoicesByStatus[status] ?? 0) + count;
    invoiceCount += count;
    invoiceSum = invoiceSum.add(sum);
    if (status === 'COMPLETED') {
      paidCount += count;
      paidVolume = paidVolume.add(sum);
    }
  }

  // Zero-filled, one point per bucket of the window; the rows read name their bucket by its start.
  const series = w.labels.map((date) => ({ date, payments_volume_usd: ZERO_TEXT, invoices_count: 0 }));
  const start = w.from.getTime();
  const size = (w.to.getTime() - start) / w.buckets.length;
  const pointAt = (seconds: number) => series[(seconds * 1000 - start) / size];
  for (const [at, v] of read.paymentSeries) {
    const point = pointAt(at);
    if (point) point.payments_volume_usd = moneyText(v);
  }
  for (const [at, n] of read.invoiceSeries) {
    const point = pointAt(at);
    if (point) point.invoices_count = n;
  }

  return {
    period: w.period,
    from: timestamp(w.from),
    to: timestamp(w.to),
    payments: {
      count: paymentCount,
      completed_count: completedCount,
      volume_usd: renderAmount(volume),
      by_status: paymentsByStatus,
      by_currency: currencies.map((c) => ({ currency: c.id, count: c.count, volume_usd: renderAmount(c.volume) })),
    },
    invoices: {
      count: invoiceCount,
      by_status: invoicesByStatus,
      paid_count: paidCount,
      paid_volume_usd: renderAmount(paidVolume),
      average_price_usd: renderAmount(invoiceCount === 0 ? ZERO : divideRounded(invoiceSum, new Money(invoiceCount))),
      conversion_rate: ratio(new Money(paidCount), new Money(invoiceCount)),
    },
    providers: providers.map((p) => ({
      provider_id: p.id,
      name: input.providerName(p.id),
      payments_count: p.count,
      volume_usd: renderAmount(p.volume),
      share: ratio(p.volume, volume),
    })),
    customers: {
      unique: read.unique,
      new: read.new,
      returning: read.unique - read.new,
      top: read.top.slice(0, TOP_CUSTOMERS).map(([email, n, v]) => ({ customer_email: email, invoices_count: n, paid_volume_usd: moneyText(v) })),
    },
    series,
  };
}
