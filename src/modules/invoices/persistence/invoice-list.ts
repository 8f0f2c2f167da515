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
  /** False: the page's total is not counted (-1), for a caller that walks every page and counted on the first. */
  countTotal?: boolean;
}

/** The list statement's pieces for a filter (the list's WHERE clause, its parameters and paging). */
export function invoiceListRequest(scope: Scope, f: InvoiceListFilter, clock?: { now: Date; monitoringMinutes: number }): KeysetPageRequest {
  const w = new ListWhere(scope);
  if (f.status?.length && clock) {
    // The status as of now: an unpaid invoice past its monitoring window counts as VOIDED even
    // before the sweeper has written it (domain/invoice-timing.ts).
    // One cutoff parameter rather than an interval added to every row's expires_at.
    // A reorg's hold (clock_held_until later than now) keeps it PENDING: the scope's held invoices are read once
    // (an InitPlan through invoices_clock_held_idx, nearly always none), so the status indexes, which carry
    // expires_at and id but not the hold, still answer the page and its total without reading the table.
    const cutoff = w.param(voidedIfExpiredBy(clock.now, clock.monitoringMinutes));
    const now = w.param(clock.now);
    const held = `ARRAY(SELECT h.id FROM invoices h WHERE h.organization_id = $1 AND h.mode = $2 AND h.clock_held_until > ${now}::timestamptz)`;
    w.add(
      (p) => `(CASE WHEN status = 'PENDING' AND expires_at <= ${cutoff}::timestamptz AND id <> ALL(${held})
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
  // Invoices having a payment (any status) through this provider (either spelling, provider_ or prov_):
  // the invoice's own read model of its payments (payment_provider_ids, kept by the settlement), so the
  // list reads no other module's table; checked on each invoice the scope's walk meets.
  if (f.providerId !== undefined) w.add((p) => `payment_provider_ids @> ARRAY[regexp_replace(${p}, '^provider_', 'prov_')]`, f.providerId);
  return {
    table: 'invoices',
    columns: INVOICE_COLUMNS,
    where: w.where,
    params: w.params,
    limit: f.limit,
    offset: f.offset,
    startingAfter: f.startingAfter,
    countTotal: f.countTotal,
    filtered: w.filtered,
    parts: w.parts,
  };
}
