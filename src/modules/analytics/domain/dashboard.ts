import { Amount, Money, renderAmount, roundMoney, sumAmounts, ZERO } from '../../../shared/money/money';
import { bucketLabel, DashboardWindow } from './period';

/** Payment and invoice states as the interface publishes them; every one appears in by_status. */
export const PAYMENT_STATES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const INVOICE_STATES = ['PENDING', 'COMPLETED', 'VOIDED', 'PROCESSING', 'WAITING_FOR_CONFIRMATIONS', 'PARTIALLY_PAID'] as const;
export const TOP_CUSTOMERS = 5;

/** Payments of the window grouped by provider, currency and status (from the rollups). */
export interface PaymentCell {
  providerId: string;
  currency: string;
  status: string;
  count: number;
  /** Sum of price_usd of these payments. */
  volumeUsd: Amount;
}

/** Invoices of the window grouped by status. */
export interface InvoiceCell {
  status: string;
  count: number;
  priceUsdSum: Amount;
}

export interface SeriesCell {
  bucket: Date;
  paymentsVolumeUsd: Amount;
  invoicesCount: number;
}

export interface CustomerRow {
  email: string;
  invoicesCount: number;
  paidVolumeUsd: Amount;
}

export interface CustomerFigures {
  unique: number;
  new: number;
  /** Already ranked: paid volume desc, then invoices desc, then email. */
  top: CustomerRow[];
}

export interface DashboardInput {
  window: DashboardWindow;
  payments: PaymentCell[];
  invoices: InvoiceCell[];
  series: SeriesCell[];
  customers: CustomerFigures;
  providerNames: ReadonlyMap<string, string>;
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
}

/** part / whole as a 30-digit decimal string, 0 when the whole is zero. */
export function ratio(part: Amount, whole: Amount): string {
  return renderAmount(whole.isZero() ? ZERO : roundMoney(part.div(whole)));
}

function timestamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

interface Group { count: number; volume: Amount }

/** Volume counts COMPLETED payments only; counts count every payment of the group. */
function groupPayments(cells: PaymentCell[], key: (c: PaymentCell) => string): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const c of cells) {
    const g = groups.get(key(c)) ?? { count: 0, volume: ZERO };
    g.count += c.count;
    if (c.status === 'COMPLETED') g.volume = g.volume.add(c.volumeUsd);
    groups.set(key(c), g);
  }
  return groups;
}

function byVolume<T extends { volume: Amount; count: number; id: string }>(a: T, b: T): number {
  return b.volume.comparedTo(a.volume) || b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The dashboard's figures from the window's rollups (decisions §12, docs/analytics.md). */
export function buildDashboard(input: DashboardInput): DashboardView {
  const { window: w } = input;

  const paymentsByStatus = Object.fromEntries(PAYMENT_STATES.map((s) => [s, 0])) as Record<string, number>;
  for (const c of input.payments) paymentsByStatus[c.status] = (paymentsByStatus[c.status] ?? 0) + c.count;
  const completed = input.payments.filter((c) => c.status === 'COMPLETED');
  const volume = sumAmounts(completed.map((c) => c.volumeUsd));

  const currencies = [...groupPayments(input.payments, (c) => c.currency)].map(([id, g]) => ({ id, ...g })).sort(byVolume);
  const providers = [...groupPayments(input.payments, (c) => c.providerId)].map(([id, g]) => ({ id, ...g })).sort(byVolume);

  const invoicesByStatus = Object.fromEntries(INVOICE_STATES.map((s) => [s, 0])) as Record<string, number>;
  for (const c of input.invoices) invoicesByStatus[c.status] = (invoicesByStatus[c.status] ?? 0) + c.count;
  const invoiceCount = input.invoices.reduce((n, c) => n + c.count, 0);
  const invoiceSum = sumAmounts(input.invoices.map((c) => c.priceUsdSum));
  const paid = input.invoices.filter((c) => c.status === 'COMPLETED');
  const paidCount = paid.reduce((n, c) => n + c.count, 0);
  const paidVolume = sumAmounts(paid.map((c) => c.priceUsdSum));

  const seriesByBucket = new Map(input.series.map((s) => [s.bucket.getTime(), s]));

  return {
    period: w.period,
    from: timestamp(w.from),
    to: timestamp(w.to),
    payments: {
      count: input.payments.reduce((n, c) => n + c.count, 0),
      completed_count: completed.reduce((n, c) => n + c.count, 0),
      volume_usd: renderAmount(volume),
      by_status: paymentsByStatus,
      by_currency: currencies.map((c) => ({ currency: c.id, count: c.count, volume_usd: renderAmount(c.volume) })),
    },
    invoices: {
      count: invoiceCount,
      by_status: invoicesByStatus,
      paid_count: paidCount,
      paid_volume_usd: renderAmount(paidVolume),
      average_price_usd: renderAmount(invoiceCount === 0 ? ZERO : roundMoney(invoiceSum.div(invoiceCount))),
      conversion_rate: ratio(new Money(paidCount), new Money(invoiceCount)),
    },
    providers: providers.map((p) => ({
      provider_id: p.id,
      name: input.providerNames.get(p.id) ?? p.id,
      payments_count: p.count,
      volume_usd: renderAmount(p.volume),
      share: ratio(p.volume, volume),
    })),
    customers: {
      unique: input.customers.unique,
      new: input.customers.new,
      returning: input.customers.unique - input.customers.new,
      top: input.customers.top.slice(0, TOP_CUSTOMERS).map((c) => ({
        customer_email: c.email, invoices_count: c.invoicesCount, paid_volume_usd: renderAmount(c.paidVolumeUsd),
      })),
    },
    series: w.buckets.map((b) => {
      const point = seriesByBucket.get(b.getTime());
      return {
        date: bucketLabel(b, w.grain),
        payments_volume_usd: renderAmount(point?.paymentsVolumeUsd ?? ZERO),
        invoices_count: point?.invoicesCount ?? 0,
      };
    }),
  };
}
