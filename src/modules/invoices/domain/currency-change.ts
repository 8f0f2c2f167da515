/**
 * Whether a currency change of a PENDING invoice goes ahead. Pure: the update handler calls it
 * under the invoice's row lock with what is stored, and unit tests call it directly.
 *
 * - A change to the currency the invoice already has is a no-op for every caller: no re-quote, no
 *   write, no `invoice.updated` event, no webhook delivery.
 * - A payer (a call without a key) may change an invoice's currency at most
 *   PAYER_CURRENCY_CHANGES_PER_WINDOW times per window of PAYER_CURRENCY_WINDOW_SECONDS, counted from
 *   the first change of the window; one more is refused (429, Retry-After: the seconds until the
 *   window ends). Each accepted change still re-quotes and writes one event: the cap bounds how many
 *   events, deliveries and quotes one checkout can cause.
 * - A caller with a key (the merchant's code) is not capped here; its key's rate limit applies.
 */

export const PAYER_CURRENCY_CHANGES_PER_WINDOW = 5;
export const PAYER_CURRENCY_WINDOW_SECONDS = 3600;

/** The payer changes counted so far for one invoice: since when, and how many. */
export interface CurrencyChangeWindow {
  startedAt: Date;
  changes: number;
}

export type CurrencyChangeDecision =
  | { kind: 'unchanged' }
  | { kind: 'refused'; retryAfterSeconds: number }
  /** Go ahead; `window` is the count to store afterwards (null: nothing to count, a keyed caller). */
  | { kind: 'apply'; window: CurrencyChangeWindow | null };

export function decideCurrencyChange(input: {
  current: string;
  requested: string;
  byPayer: boolean;
  window: CurrencyChangeWindow | null;
  now: Date;
}): CurrencyChangeDecision {
  const { current, requested, byPayer, window, now } = input;
  if (current === requested) return { kind: 'unchanged' };
  if (!byPayer) return { kind: 'apply', window: null };
  const endsAt = window ? window.startedAt.getTime() + PAYER_CURRENCY_WINDOW_SECONDS * 1000 : 0;
  if (!window || endsAt <= now.getTime()) return { kind: 'apply', window: { startedAt: now, changes: 1 } };
  if (window.changes >= PAYER_CURRENCY_CHANGES_PER_WINDOW) {
    return { kind: 'refused', retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)) };
  }
  return { kind: 'apply', window: { startedAt: window.startedAt, changes: window.changes + 1 } };
}
