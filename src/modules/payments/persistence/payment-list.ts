import type { Scope } from '../../../shared/auth/request-context';
import { amountBound, KeysetPageRequest, ListWhere } from '../../../shared/db/keyset-page';
import type { Currency } from '../../../shared/money/currency';
import { Amount, renderAmount } from '../../../shared/money/money';
import type { PaymentStatus } from '../domain/payment-status';

/** The payment columns as the repository reads them (amounts as text, for exact decimals). */
export const PAYMENT_COLUMNS = `id, organization_id, mode, provider_id, invoice_id, currency, price::text AS price, price_usd::text AS price_usd,
  rates_snapshot_id, status, idempotency_key, confirmations, required_confirmations, happened_at, created_at, updated_at`;

export interface PaymentListFilter {
  providerId?: string[];
  invoiceId?: string;
  status?: PaymentStatus[];
  currency?: Currency[];
  priceUsdFrom?: Amount;
  priceUsdTo?: Amount;
  createdFrom?: Date;
  createdTo?: Date;
  /** Cursor: the page starts after this id (the last item of the previous page); see listPage. */
  startingAfter?: string;
  limit: number;
  offset: number;
  /** False: the page's total is not counted (-1), for a caller that walks every page and counted on the first. */
  countTotal?: boolean;
}

/** The list statement's pieces for a filter (the list's WHERE clause, its parameters and paging). */
export function paymentListRequest(scope: Scope, f: PaymentListFilter): KeysetPageRequest {
  const w = new ListWhere(scope);
  if (f.providerId?.length) w.add((p) => `provider_id = ANY(${p}::text[])`, f.providerId);
  if (f.invoiceId !== undefined) {
    // An invoice has a few payments: found through the (invoice_id, ...) index, the scope checked on them.
    w.add((p) => `invoice_id = ${p}`, f.invoiceId);
    w.scopeOnRow();
  }
  if (f.status?.length) w.statuses(f.status);
  if (f.currency?.length) w.oneOf('currency', f.currency);
  if (f.priceUsdFrom) w.add((p) => amountBound('price_usd', '>=', p, !!f.status?.length), renderAmount(f.priceUsdFrom));
  if (f.priceUsdTo) w.add((p) => amountBound('price_usd', '<=', p, !!f.status?.length), renderAmount(f.priceUsdTo));
  if (f.createdFrom) w.add((p) => `created_at >= ${p}`, f.createdFrom, 'time');
  if (f.createdTo) w.add((p) => `created_at <= ${p}`, f.createdTo, 'time');
  return {
    table: 'payments',
    columns: PAYMENT_COLUMNS,
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
