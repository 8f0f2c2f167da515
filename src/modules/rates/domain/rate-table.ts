import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { CURRENCIES } from '../../../shared/money/currency';
import { amountProblem, parseAmount } from '../../../shared/money/money';
import { parseTimeBound } from '../../../shared/time/time';

/** Where one rate came from: the source that answered it and when that answer was taken. */
export interface RateOrigin {
  source: string;
  takenAt: Date;
}

/**
 * One snapshot of rates: the USD value of one unit of every currency at `takenAt`, and each rate's
 * origin (a rate carried from an earlier snapshot keeps its own older time and source).
 */
export interface RateTable {
  snapshotId: string;
  takenAt: Date;
  usd: Record<Currency, Amount>;
  origins: Record<Currency, RateOrigin>;
}

export interface SnapshotInput {
  takenAt: Date;
  source: string;
  rates: Partial<Record<Currency, Amount>>;
  /** Per-rate origins; a rate without one was taken by `source` at `takenAt`. */
  origins?: Partial<Record<Currency, RateOrigin>>;
}

/** A complete set of rates ready to store: every currency's USD value and origin. */
export interface CompleteRates {
  usd: Record<Currency, Amount>;
  origins: Record<Currency, RateOrigin>;
}

export class SnapshotFileError extends Error {
  constructor(readonly fields: Record<string, string>) {
    super(
      `Invalid rates file: ${Object.entries(fields)
        .map(([k, v]) => `${k} ${v}`)
        .join('; ')}`,
    );
  }
}

/**
 * Reads a rates file: `{ "taken_at": "YYYY-MM-DD HH:MM:SS" | ISO 8601, "source"?: text,
 * "rates": { "BITCOIN": "91250.42", ... } }`. Rates are positive decimal strings; unknown
 * currencies are refused. Currencies left out keep their previous rate (the caller fills them).
 */
export function parseSnapshotFile(json: unknown): SnapshotInput {
  const errors: Record<string, string> = {};
  const doc = (json ?? {}) as { taken_at?: unknown; source?: unknown; rates?: unknown };
  const takenAt = typeof doc.taken_at === 'string' ? parseTimeBound(doc.taken_at, 'from') : null;
  if (!takenAt) errors.taken_at = 'must be a time as YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601';
  const rates: Partial<Record<Currency, Amount>> = {};
  if (!doc.rates || typeof doc.rates !== 'object' || Array.isArray(doc.rates)) {
    errors.rates = 'must be an object of currency to USD rate';
  } else {
    for (const [currency, value] of Object.entries(doc.rates as Record<string, unknown>)) {
      if (!(CURRENCIES as readonly string[]).includes(currency)) {
        errors[`rates.${currency}`] = 'is not a Currency value';
        continue;
      }
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
      if (typeof text !== 'string' || amountProblem(text) !== null || parseAmount(text).isZero()) {
        errors[`rates.${currency}`] = 'must be a positive decimal string';
        continue;
      }
      rates[currency as Currency] = parseAmount(text);
    }
    if (!Object.keys(rates).length && !Object.keys(errors).length) errors.rates = 'must name at least one currency';
  }
  if (Object.keys(errors).length) throw new SnapshotFileError(errors);
  return { takenAt: takenAt as Date, source: typeof doc.source === 'string' && doc.source ? doc.source.slice(0, 100) : 'import', rates };
}

/**
 * Completes a partial snapshot with the previous one; every currency must end up with a rate. A
 * carried rate keeps its previous origin (time and source), so its age shows that nobody renewed it.
 */
export function completeSnapshot(input: SnapshotInput, previous: RateTable | null): CompleteRates {
  const usd = {} as Record<Currency, Amount>;
  const origins = {} as Record<Currency, RateOrigin>;
  const missing: string[] = [];
  for (const currency of CURRENCIES) {
    const given = input.rates[currency];
    if (given) {
      usd[currency] = given;
      origins[currency] = input.origins?.[currency] ?? { source: input.source, takenAt: input.takenAt };
    } else if (previous?.usd[currency]) {
      usd[currency] = previous.usd[currency];
      origins[currency] = previous.origins[currency];
    } else missing.push(currency);
  }
  if (missing.length) throw new SnapshotFileError({ rates: `has no rate, now or before, for ${missing.join(', ')}` });
  if (!usd.USD.eq(1)) throw new SnapshotFileError({ 'rates.USD': 'must be 1' });
  return { usd, origins };
}
