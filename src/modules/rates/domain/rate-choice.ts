import { CURRENCIES, type Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { Money } from '../../../shared/money/money';
import type { RateOrigin } from './rate-table';
import type { SourceAnswer } from './source-answer';

/** One source's turn in a refresh: its answer, or why it gave none (error, timeout, bad shape). */
export type SourceResult = { source: string; answer: SourceAnswer } | { source: string; error: string };

/** A rate a refresh passed over, and why: the answer of that source for that currency was not usable. */
export interface SkippedRate {
  source: string;
  currency: Currency;
  reason: string;
}

export interface RateChoice {
  /** The fresh rates chosen, each from the first source (in order) that had a usable one. */
  rates: Partial<Record<Currency, Amount>>;
  origins: Partial<Record<Currency, RateOrigin>>;
  /** Currencies no source answered usably: they keep their previous rate and grow old. */
  missing: Currency[];
  /** Sources whose whole answer failed. */
  failed: Array<{ source: string; error: string }>;
  skipped: SkippedRate[];
}

/** The source recorded on USD, whose rate is 1 by definition and never asked for. */
export const USD_SOURCE = 'fixed';

/**
 * Chooses each currency's rate from the sources' answers: the first source, in the configured order,
 * whose answer for it is a positive number taken at most `maxAgeMs` before `now`. Answers with a
 * problem (zero, negative, not a number) or older than that are skipped for the next source.
 */
export function chooseRates(results: readonly SourceResult[], now: Date, maxAgeMs: number): RateChoice {
  const choice: RateChoice = { rates: { USD: new Money(1) }, origins: { USD: { source: USD_SOURCE, takenAt: now } }, missing: [], failed: [], skipped: [] };
  for (const r of results) if ('error' in r) choice.failed.push({ source: r.source, error: r.error });
  for (const currency of CURRENCIES) {
    if (currency === 'USD') continue;
    for (const r of results) {
      if ('error' in r) continue;
      const q = r.answer[currency];
      if (!q) continue;
      if ('problem' in q) {
        choice.skipped.push({ source: r.source, currency, reason: q.problem });
        continue;
      }
      const age = now.getTime() - q.takenAt.getTime();
      if (age > maxAgeMs) {
        choice.skipped.push({ source: r.source, currency, reason: `stale (${Math.round(age / 1000)} s old)` });
        continue;
      }
      choice.rates[currency] = q.usd;
      choice.origins[currency] = { source: r.source, takenAt: q.takenAt };
      break;
    }
    if (!choice.rates[currency]) choice.missing.push(currency);
  }
  return choice;
}

/**
 * The currencies among `needed` whose rate in a table is older than `maxAgeMs` at `now` (USD never
 * is), with their age in seconds: what live pricing refuses.
 */
export function staleRates(
  origins: Partial<Record<Currency, RateOrigin>>,
  needed: Iterable<Currency>,
  now: Date,
  maxAgeMs: number,
): Array<{ currency: Currency; ageSeconds: number; source: string | null }> {
  const out: Array<{ currency: Currency; ageSeconds: number; source: string | null }> = [];
  for (const currency of new Set(needed)) {
    if (currency === 'USD') continue;
    const origin = origins[currency];
    const age = origin ? now.getTime() - origin.takenAt.getTime() : Number.POSITIVE_INFINITY;
    if (age > maxAgeMs) out.push({ currency, ageSeconds: Number.isFinite(age) ? Math.floor(age / 1000) : -1, source: origin?.source ?? null });
  }
  return out;
}
