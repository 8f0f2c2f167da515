import { amountProblem, AMOUNT_PROBLEM_MESSAGES } from '../../../shared/money/money';
import { canonicalCurrency, isCurrency } from '../../../shared/money/currency';
import { parseTimeBound } from '../../../shared/time/time';
import type { ExportKind } from './csv';

/**
 * An export's filters, read from a query string: the `created_at` period (UTC) and the filters of
 * the list the export follows (decisions §25), named as the list's body fields are.
 */
export interface ExportFilter {
  createdFrom?: Date;
  createdTo?: Date;
  status?: string[];
  currency?: string[];
  priceUsdFrom?: string;
  priceUsdTo?: string;
  customerEmail?: string;
  providerId?: string[];
  invoiceId?: string;
}

export type ExportParamsResult = { ok: true; filter: ExportFilter } | { ok: false; problems: Record<string, string> };

/** The query parameters each export takes. */
export const EXPORT_PARAMS: Record<ExportKind, readonly string[]> = {
  invoices: ['created_at_from', 'created_at_to', 'status', 'currency', 'price_usd_from', 'price_usd_to', 'customer_email', 'provider_id'],
  payments: ['created_at_from', 'created_at_to', 'status', 'currency', 'price_usd_from', 'price_usd_to', 'provider_id', 'invoice_id'],
  refunds: ['created_at_from', 'created_at_to', 'status', 'invoice_id'],
};

const TIME_MESSAGE = 'must be a time as YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day) or ISO 8601';

/** A parameter's values: repeated parameters and comma-separated values alike; empty values dropped. */
function listOf(value: unknown): string[] | null {
  const parts: unknown[] = Array.isArray(value) ? value : [value];
  if (!parts.every((p): p is string => typeof p === 'string')) return null;
  return parts
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** A parameter given once, as text; null when repeated or not text. */
function single(value: unknown): string | null {
  return typeof value === 'string' ? value.trim() : null;
}

/**
 * Reads an export's query parameters. An unknown parameter is refused (a mistyped filter would
 * otherwise export everything); an empty one counts as absent (an empty form field). `statuses`
 * are the statuses of the exported object.
 */
export function parseExportParams(kind: ExportKind, query: Record<string, unknown>, statuses: readonly string[]): ExportParamsResult {
  const known = EXPORT_PARAMS[kind];
  const problems: Record<string, string> = {};
  const filter: ExportFilter = {};
  for (const [name, raw] of Object.entries(query)) {
    if (!known.includes(name)) {
      problems[name] = `is not a filter of this export (it takes ${known.join(', ')})`;
      continue;
    }
    if (raw === undefined || raw === '') continue;
    switch (name) {
      case 'created_at_from':
      case 'created_at_to': {
        const text = single(raw);
        const at = text ? parseTimeBound(text, name === 'created_at_from' ? 'from' : 'to') : null;
        if (!at) problems[name] = TIME_MESSAGE;
        else if (name === 'created_at_from') filter.createdFrom = at;
        else filter.createdTo = at;
        break;
      }
      case 'status': {
        const values = listOf(raw);
        const wrong = values?.find((v) => !statuses.includes(v));
        if (!values || wrong !== undefined) problems.status = `values must be among ${statuses.join(', ')}`;
        else if (values.length) filter.status = [...new Set(values)];
        break;
      }
      case 'currency': {
        const values = listOf(raw)?.map((v) => canonicalCurrency(v));
        if (!values || values.some((v) => !isCurrency(v))) problems.currency = 'values must be currencies (USD, USDT, BITCOIN, ... or their tickers)';
        else if (values.length) filter.currency = [...new Set(values as string[])];
        break;
      }
      case 'price_usd_from':
      case 'price_usd_to': {
        const text = single(raw);
        const problem = text === null ? 'not_a_decimal' : amountProblem(text);
        if (problem) problems[name] = AMOUNT_PROBLEM_MESSAGES[problem];
        else if (name === 'price_usd_from') filter.priceUsdFrom = text!;
        else filter.priceUsdTo = text!;
        break;
      }
      case 'customer_email': {
        const text = single(raw);
        if (text === null || text.length > 320) problems.customer_email = 'must be one email address (at most 320 characters)';
        else if (text) filter.customerEmail = text;
        break;
      }
      case 'provider_id': {
        const values = listOf(raw);
        if (!values || values.some((v) => v.length > 200)) problems.provider_id = 'values must be provider ids (at most 200 characters)';
        else if (kind === 'invoices' && values.length > 1) problems.provider_id = 'takes one provider id for invoices';
        else if (values.length) filter.providerId = values;
        break;
      }
      case 'invoice_id': {
        const text = single(raw);
        if (text === null || text.length > 200) problems.invoice_id = 'must be one invoice id (at most 200 characters)';
        else if (text) filter.invoiceId = text;
        break;
      }
    }
  }
  if (filter.createdFrom && filter.createdTo && filter.createdFrom > filter.createdTo && !problems.created_at_to) {
    problems.created_at_to = 'must not be before created_at_from';
  }
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, filter };
}

/** A file name for an export: its kind, mode and period (`invoices-test-2026-11-01-to-2026-11-30.csv`). */
export function exportFileName(kind: ExportKind, mode: string, filter: ExportFilter): string {
  const day = (d: Date | undefined) => (d ? d.toISOString().slice(0, 10) : null);
  const from = day(filter.createdFrom);
  const to = day(filter.createdTo);
  const period = from || to ? `-${from ?? 'start'}-to-${to ?? 'now'}` : '';
  return `${kind}-${mode}${period}.csv`;
}
