import type { Scope } from '../../../shared/auth/request-context';
import { amountBound, KeysetPageRequest, statusIn } from '../../../shared/db/keyset-page';
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
}

/** The list statement's pieces for a filter (the list's WHERE clause, its parameters and paging). */
export function paymentListRequest(scope: Scope, f: PaymentListFilter): KeysetPageRequest {
  const params: unknown[] = [scope.organizationId, scope.mode];
  const where = ['organization_id = $1', 'mode = $2'];
  // Whether any clause filters on values rather than on time (keysetPage reads such matches once).
  let filtered = false;
  const add = (sql: (p: string) => string, value: unknown, on: 'value' | 'time' = 'value') => {
    params.push(value);
    where.push(sql(`$${params.length}`));
    if (on === 'value') filtered = true;
  };
  // One parameter per status (see statusIn).
  const addStatuses = (asked: readonly string[]) => {
    const statuses = [...new Set(asked)];
    const first = params.length + 1;
    params.push(...statuses);
    where.push(statusIn(statuses.map((_, i) => `$${first + i}`)));
    filtered = true;
  };
  if (f.providerId?.length) add((p) => `provider_id = ANY(${p}::text[])`, f.providerId);
  if (f.invoiceId !== undefined) add((p) => `invoice_id = ${p}`, f.invoiceId);
  if (f.status?.length) addStatuses(f.status);
  if (f.currency?.length) add((p) => `currency = ANY(${p}::text[])`, f.currency);
  if (f.priceUsdFrom) add((p) => amountBound('price_usd', '>=', p, !!f.status?.length), renderAmount(f.priceUsdFrom));
  if (f.priceUsdTo) add((p) => amountBound('price_usd', '<=', p, !!f.status?.length), renderAmount(f.priceUsdTo));
  if (f.createdFrom) add((p) => `created_at >= ${p}`, f.createdFrom, 'time');
  if (f.createdTo) add((p) => `created_at <= ${p}`, f.createdTo, 'time');
  return {
    table: 'payments', columns: PAYMENT_COLUMNS, where: where.join(' AND '), params,
    limit: f.limit, offset: f.offset, startingAfter: f.startingAfter, filtered,
  };
}
