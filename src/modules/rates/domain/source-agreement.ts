import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import type { SourceAnswer } from './source-answer';

/** One currency the sources quote further apart than RATES_MAX_SPREAD. */
export interface Disagreement {
  currency: Currency;
  /** The lowest and the highest answer, and who gave them. */
  low: { source: string; rate: string };
  high: { source: string; rate: string };
  /** (high - low) / low, as a decimal string. */
  spread: string;
}

/**
 * Where the sources that answered disagree (the preflight's question: would the refresher drop their
 * answers?): per currency quoted usably by two sources or more, the spread between the lowest and the
 * highest answer, measured from the lowest as the refresher measures two answers; above `maxSpread` it
 * is a disagreement. Unusable quotes (a problem) are left out; a currency one source quotes has nothing
 * to disagree with.
 */
export function disagreements(answers: ReadonlyArray<{ source: string; answer: SourceAnswer }>, maxSpread: Amount): Disagreement[] {
  const byCurrency = new Map<Currency, Array<{ source: string; usd: Amount }>>();
  for (const { source, answer } of answers) {
    for (const [currency, quote] of Object.entries(answer) as Array<[Currency, SourceAnswer[Currency]]>) {
      if (!quote || 'problem' in quote || !quote.usd.gt(0)) continue;
      const list = byCurrency.get(currency) ?? [];
      list.push({ source, usd: quote.usd });
      byCurrency.set(currency, list);
    }
  }
  const out: Disagreement[] = [];
  for (const [currency, quotes] of byCurrency) {
    if (quotes.length < 2) continue;
    const sorted = [...quotes].sort((a, b) => a.usd.comparedTo(b.usd));
    const low = sorted[0];
    const high = sorted[sorted.length - 1];
    const spread = high.usd.sub(low.usd).div(low.usd);
    if (spread.gt(maxSpread)) {
      out.push({
        currency,
        low: { source: low.source, rate: low.usd.toFixed() },
        high: { source: high.source, rate: high.usd.toFixed() },
        spread: spread.toSignificantDigits(4).toFixed(),
      });
    }
  }
  return out.sort((a, b) => a.currency.localeCompare(b.currency));
}
