import { renderAmount } from '../../../shared/money/money';
import type { Amount } from '../../../shared/money/money';
import { formatTimestamp } from '../../../shared/time/time';
import type { Period } from './periods';

/** Longest name a line quotes (a product, schema or metric name), so a line stays readable and within the column's bound. */
const NAME_LIMIT = 200;

function clipped(name: string): string {
  const text = name.trim().replace(/\s+/g, ' ');
  return text.length > NAME_LIMIT ? `${text.slice(0, NAME_LIMIT - 1)}…` : text;
}

/** A decimal as people read it: every digit kept (no rounding), the whole part grouped by thousands, no trailing zeros. */
export function readableDecimal(value: Amount): string {
  const [whole, fraction] = renderAmount(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const digits = (fraction ?? '').replace(/0+$/, '');
  return digits ? `${grouped}.${digits}` : grouped;
}

/** A period as its invoice carries it: both bounds, UTC, in the service's timestamp form ([start, end)). */
export function periodText(period: Pick<Period, 'start' | 'end'>): string {
  return `${formatTimestamp(period.start)} to ${formatTimestamp(period.end)} UTC`;
}

/** The plan a subscription is on: its product's name and, when it says more, its billing schema's. */
export function planText(productName: string, schemaName: string | null): string {
  const product = clipped(productName);
  const schema = schemaName ? clipped(schemaName) : '';
  if (!schema || schema === product) return product || 'Subscription';
  return product ? `${product}, ${schema}` : schema;
}

/** The base line: "Acme API, Pro monthly × 3, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC" (", prorated" for a partial first period). */
export function baseLineText(plan: string, quantity: number, period: Pick<Period, 'start' | 'end'>, prorated: boolean): string {
  return `${plan} × ${quantity}, ${periodText(period)}${prorated ? ', prorated' : ''}`;
}

/** A usage line: "Acme API, Pro monthly: API calls, 12,500 units, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC". */
export function usageLineText(plan: string, metricName: string, quantity: Amount, period: Pick<Period, 'start' | 'end'>): string {
  const units = quantity.equals(1) ? 'unit' : 'units';
  return `${plan}: ${clipped(metricName)}, ${readableDecimal(quantity)} ${units}, ${periodText(period)}`;
}
