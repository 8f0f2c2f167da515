import type { Scope } from '../../../shared/auth/request-context';
import { amountBound, KeysetPageRequest, ListWhere } from '../../../shared/db/keyset-page';
import type { Currency } from '../../../shared/money/currency';
import { Amount, renderAmount } from '../../../shared/money/money';
import type { InvoiceStatus } from '../domain/invoice-status';
import { voidedIfExpiredBy } from '../domain/invoice-timing';
import { INVOICE_COLUMNS } from './invoice-sql';

export interface InvoiceListFilter {
  status?: InvoiceStatus[];
  currency?: Currency[];
  priceUsdFrom?: Amount;
  priceUsdTo?: Amount;
  createdFrom?: Date;
  createdTo?: Date;
  customerEmail?: string;
  providerId?: string;
  /** Cursor: the page starts after this id (the last item of the previous page); see listPage. */
  startingAfter?: string;
  limit: number;
  offset: number;
}

/**
 * Whether PostgreSQL has statistics for `payments` (ANALYZE, or autovacuum's, has run on it): the form
 * of the provider filter depends on it. Readable by the tables' owner; one row of pg_stats.
 */
export const PAYMENTS_ANALYZED_SQL = `SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'payments'
                                                    AND attname = 'invoice_id') AS analyzed`;

/**
 * The list statement's pieces for a filter (the list's WHERE clause, its parameters and paging).
 * `paymentsAnalyzed`: whether the planner has statistics for payments (PAYMENTS_ANALYZED_SQL), which
 * only the provider filter's form depends on.
 */
export function invoiceListRequest(
  scope: Scope,
  f: InvoiceListFilter,
  clock?: { now: Date; monitoringMinutes: number },
  paymentsAnalyzed = true,
): KeysetPageRequest {
  const w = new ListWhere(scope);
  if (f.status?.length && clock) {
    // The status as of now: an unpaid invoice past its monitoring window counts as VOIDED even
    // before the sweeper has written it (domain/invoice-timing.ts).
    // One cutoff parameter rather than an interval added to every row's expires_at.
    const cutoff = w.param(voidedIfExpiredBy(clock.now, clock.monitoringMinutes));
    w.add(
      (p) => `(CASE WHEN status = 'PENDING' AND expires_at <= ${cutoff}::timestamptz
                      THEN 'VOIDED' ELSE status END) = ANY(${p}::text[])`,
      f.status,
    );
    // The same rows, said so an index on status can find them: the status as of now differs from the
    // stored one only for a stored PENDING (then VOIDED).
    w.statuses(f.status.includes('VOIDED') && !f.status.includes('PENDING') ? [...f.status, 'PENDING'] : f.status);
  } else if (f.status?.length) w.statuses(f.status);
  if (f.currency?.length) w.oneOf('currency', f.currency);
  if (f.priceUsdFrom) w.add((p) => amountBound('price_usd', '>=', p, !!f.status?.length), renderAmount(f.priceUsdFrom));
  if (f.priceUsdTo) w.add((p) => amountBound('price_usd', '<=', p, !!f.status?.length), renderAmount(f.priceUsdTo));
  if (f.createdFrom) w.add((p) => `created_at >= ${p}`, f.createdFrom, 'time');
  if (f.createdTo) w.add((p) => `created_at <= ${p}`, f.createdTo, 'time');
  if (f.customerEmail !== undefined) w.add((p) => `lower(customer_email) = lower(${p})`, f.customerEmail);
  // Invoices having a payment (any status) through this provider (either spelling, provider_ or prov_);
  // read side of the payments table. Two forms, by whether payments has statistics:
  // - analyzed: with the scope, so the planner may hash the organization's payments through the
  //   provider once and join them to the invoices (3.5 ms for 2,627 matches among 8,999 invoices);
  // - never analyzed: the planner believes the organization has no payments and, given the scope, walks
  //   its provider range once per invoice (quadratic: 64-106 ms on 895 invoices). Without the scope the
  //   only way in is the invoice's own index (payments_invoice_idx: invoice_id, provider_id), one lookup
  //   per invoice the walk meets, linear whatever the estimates. The scope is implied: a payment is
  //   always recorded in its invoice's organization and mode, and the invoices are the caller's.
  if (f.providerId !== undefined) {
    const provider = (p: string) => `regexp_replace(${p}, '^provider_', 'prov_')`;
    w.add(
      paymentsAnalyzed
        ? (p) => `EXISTS (SELECT 1 FROM payments pay WHERE pay.invoice_id = invoices.id AND pay.organization_id = invoices.organization_id
                            AND pay.mode = invoices.mode AND pay.provider_id = ${provider(p)})`
        : (p) => `EXISTS (SELECT 1 FROM payments pay WHERE pay.invoice_id = invoices.id AND pay.provider_id = ${provider(p)})`,
      f.providerId,
    );
  }
  return {
    table: 'invoices',
    columns: INVOICE_COLUMNS,
    where: w.where,
    params: w.params,
    limit: f.limit,
    offset: f.offset,
    startingAfter: f.startingAfter,
    filtered: w.filtered,
    parts: w.parts,
  };
}
