import { CURRENCIES, type Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { Money } from '../../../shared/money/money';
import { coinbaseSymbols } from './coinbase-answer';
import { COINGECKO_IDS } from './coingecko-answer';
import { KRAKEN_PAIRS } from './kraken-answer';
import type { RateOrigin } from './rate-table';
import { storableRateProblem, type SourceAnswer } from './source-answer';

/** One source's turn in a refresh: its answer, or why it gave none (error, timeout, bad shape). */
export type SourceResult = { source: string; answer: SourceAnswer } | { source: string; error: string };

/** A rate a refresh passed over, and why: the answer of that source for that currency was not usable. */
export interface SkippedRate {
  source: string;
  currency: Currency;
  reason: string;
}

/**
 * Why a usable answer was not taken: too far from the median of three or more (`outlier`), the one left
 * when the others were outliers (`uncorroborated`), one of two that disagree, or a lone answer too far
 * from the recent rates (`jump`).
 */
export type DropReason = 'outlier' | 'uncorroborated' | 'disagreement' | 'jump';

/** A usable answer the choice left out, with its value and what it was compared with. */
export interface DroppedRate {
  source: string;
  currency: Currency;
  reason: DropReason;
  rate: string;
  /** The median, the other answer, or the recent rate it was compared with. */
  against: string;
}

/** The rates taken from sources in the last hour for one currency (lowest and highest), for the jump check of a lone answer. */
export interface RecentRange {
  min: Amount;
  max: Amount;
}

export interface ChoiceSettings {
  /** Answers taken longer ago than this are skipped. */
  maxAgeMs: number;
  /** Largest relative distance |a - m| / m an answer may have from the median (RATES_MAX_SPREAD). */
  maxSpread: Amount;
  /** Largest relative change |a - r| / r a lone answer may have from a rate taken from a source in the last hour (RATES_MAX_JUMP). */
  maxJump: Amount;
  /** Per currency, the range of the rates taken from sources (not the bundled table or an import) in the last hour. */
  recent: Partial<Record<Currency, RecentRange>>;
}

export interface RateChoice {
  /** The fresh rates chosen. */
  rates: Partial<Record<Currency, Amount>>;
  origins: Partial<Record<Currency, RateOrigin>>;
  /** Currencies with no rate chosen this time: they keep their previous rate and grow old. */
  missing: Currency[];
  /** Sources whose whole answer failed. */
  failed: Array<{ source: string; error: string }>;
  /** Answers not usable at all (not a storable positive decimal, stale). */
  skipped: SkippedRate[];
  /** Usable answers the choice left out. */
  dropped: DroppedRate[];
}

/** The source recorded on USD, whose rate is 1 by definition and never asked for. */
export const USD_SOURCE = 'fixed';

/** How a rate corroborated by several sources names them in its `source`. */
export const MEDIAN_PREFIX = 'median:';

interface Answer {
  source: string;
  usd: Amount;
  takenAt: Date;
}

/** |a - b| / b, exact. */
function distance(a: Amount, b: Amount): Amount {
  return a.sub(b).abs().div(b);
}

/** The median of answers sorted by rate: the middle one, the lower middle for an even count. */
function lowerMedian(sorted: readonly Answer[]): Answer {
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Chooses each currency's rate from the sources' answers (decisions.md §21). An answer counts only if it
 * is a positive decimal the rates table can store, taken at most `maxAgeMs` before `now`; any other is
 * skipped for that currency alone. Then, per currency:
 * - three answers or more: their median m (the lower middle of an even count); each answer with
 *   |a - m| / m above `maxSpread` is dropped; the median of the rest is taken if at least two remain;
 * - exactly two: the lower one, if they are within `maxSpread` of each other;
 * - one: taken, unless a rate of that currency taken from a source in the last hour differs from it by
 *   more than `maxJump`.
 * Otherwise nothing is taken for that currency: its last rate ages. A rate taken from several answers
 * records `median:` and their sources (in the configured order) and the oldest of their times.
 */
export function chooseRates(results: readonly SourceResult[], now: Date, settings: ChoiceSettings): RateChoice {
  const choice: RateChoice = {
    rates: { USD: new Money(1) },
    origins: { USD: { source: USD_SOURCE, takenAt: now } },
    missing: [],
    failed: [],
    skipped: [],
    dropped: [],
  };
  for (const r of results) if ('error' in r) choice.failed.push({ source: r.source, error: r.error });
  const order = new Map(results.map((r, i) => [r.source, i]));
  for (const currency of CURRENCIES) {
    if (currency === 'USD') continue;
    const answers: Answer[] = [];
    for (const r of results) {
      if ('error' in r) continue;
      const q = r.answer[currency];
      if (!q) continue;
      if ('problem' in q) {
        choice.skipped.push({ source: r.source, currency, reason: q.problem });
        continue;
      }
      const problem = storableRateProblem(q.usd);
      if (problem) {
        choice.skipped.push({ source: r.source, currency, reason: problem });
        continue;
      }
      const age = now.getTime() - q.takenAt.getTime();
      if (age > settings.maxAgeMs) {
        choice.skipped.push({ source: r.source, currency, reason: `stale (${Math.round(age / 1000)} s old)` });
        continue;
      }
      answers.push({ source: r.source, usd: q.usd, takenAt: q.takenAt });
    }
    const used = pick(currency, answers, settings, choice.dropped);
    if (!used.length) {
      choice.missing.push(currency);
      continue;
    }
    const taken = used.length === 1 ? used[0] : lowerMedian(used);
    const names = [...used].sort((a, b) => (order.get(a.source) ?? 0) - (order.get(b.source) ?? 0)).map((a) => a.source);
    choice.rates[currency] = taken.usd;
    choice.origins[currency] = {
      source: used.length === 1 ? taken.source : `${MEDIAN_PREFIX}${names.join(',')}`,
      takenAt: new Date(Math.min(...used.map((a) => a.takenAt.getTime()))),
    };
  }
  return choice;
}

/** The answers a currency's rate is taken from (sorted by rate), or none; what is left out goes to `dropped`. */
function pick(currency: Currency, answers: Answer[], settings: ChoiceSettings, dropped: DroppedRate[]): Answer[] {
  const sorted = [...answers].sort((a, b) => a.usd.comparedTo(b.usd));
  const drop = (a: Answer, reason: DropReason, against: Amount) =>
    dropped.push({ source: a.source, currency, reason, rate: a.usd.toFixed(), against: against.toFixed() });
  if (sorted.length >= 3) {
    const m = lowerMedian(sorted).usd;
    const kept: Answer[] = [];
    for (const a of sorted) {
      if (distance(a.usd, m).gt(settings.maxSpread)) drop(a, 'outlier', m);
      else kept.push(a);
    }
    if (kept.length >= 2) return kept;
    for (const a of kept) drop(a, 'uncorroborated', m);
    return [];
  }
  if (sorted.length === 2) {
    const [low, high] = sorted;
    // Within the spread of each other: measured from the lower one, the larger of the two distances.
    if (!distance(high.usd, low.usd).gt(settings.maxSpread)) return sorted;
    drop(low, 'disagreement', high.usd);
    drop(high, 'disagreement', low.usd);
    return [];
  }
  if (sorted.length === 1) {
    const [only] = sorted;
    const recent = settings.recent[currency];
    if (recent) {
      for (const r of [recent.min, recent.max]) {
        if (distance(only.usd, r).gt(settings.maxJump)) {
          drop(only, 'jump', r);
          return [];
        }
      }
    }
    return sorted;
  }
  return [];
}

/**
 * Whether a rate's `source` names a live source still configured (one of `names`, or a median that one of them
 * took part in) rather than the bundled table, an import, or sources since removed from RATE_SOURCES. A median's
 * sources are listed after its prefix, separated by commas (a URL source's name may hold commas itself: matched
 * as a whole entry of the list).
 */
export function isSourceOrigin(source: string, names: readonly string[]): boolean {
  if (!source.startsWith(MEDIAN_PREFIX)) return names.includes(source);
  const list = `,${source.slice(MEDIAN_PREFIX.length)},`;
  return names.some((name) => list.includes(`,${name},`));
}

/**
 * Whether a source in RATE_SOURCES quotes `currency`: a named exchange that carries it, or (for a URL
 * source, whose currencies are not known beforehand) a rate in force that some source gave.
 */
export function quotedBySources(currency: Currency, sources: ReadonlyArray<{ kind: string; name: string }>, origin: RateOrigin | undefined): boolean {
  if (currency === 'USD') return false;
  if (
    origin &&
    isSourceOrigin(
      origin.source,
      sources.map((s) => s.name),
    )
  )
    return true;
  return sources.some(
    (s) =>
      (s.kind === 'coinbase' && coinbaseSymbols(currency).length > 0) ||
      (s.kind === 'kraken' && KRAKEN_PAIRS[currency] !== undefined) ||
      (s.kind === 'coingecko' && COINGECKO_IDS[currency] !== undefined),
  );
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
