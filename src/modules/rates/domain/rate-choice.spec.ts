import { CURRENCIES } from '../../../shared/money/currency';
import { Money } from '../../../shared/money/money';
import { chooseRates, staleRates } from './rate-choice';
import type { SourceAnswer } from './source-answer';

const now = new Date('2026-11-27T10:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const ok = (rate: string, age = 0) => ({ usd: new Money(rate), takenAt: ago(age) });

describe('choosing each currency from the first usable source', () => {
  const first: SourceAnswer = { BITCOIN: ok('95000'), EUR: { problem: 'zero' }, GBP: ok('1.31', 900), ETHEREUM: { problem: 'negative' } };
  const second: SourceAnswer = { BITCOIN: ok('94000'), EUR: ok('1.16'), GBP: ok('1.32', 5), SOLANA: ok('140') };

  it('takes the first source in order, and the next one where the first is zero, negative, stale or silent', () => {
    const choice = chooseRates(
      [
        { source: 'coinbase', answer: first },
        { source: 'kraken', answer: second },
      ],
      now,
      600_000,
    );
    expect(choice.rates.BITCOIN?.toFixed()).toBe('95000');
    expect(choice.origins.BITCOIN).toEqual({ source: 'coinbase', takenAt: now });
    expect(choice.rates.EUR?.toFixed()).toBe('1.16');
    expect(choice.origins.EUR?.source).toBe('kraken');
    expect(choice.rates.GBP?.toFixed()).toBe('1.32');
    expect(choice.origins.GBP).toEqual({ source: 'kraken', takenAt: ago(5) });
    expect(choice.origins.SOLANA?.source).toBe('kraken');
    expect(choice.rates.ETHEREUM).toBeUndefined();
    expect(choice.missing).toContain('ETHEREUM');
    expect(choice.skipped).toEqual(
      expect.arrayContaining([
        { source: 'coinbase', currency: 'EUR', reason: 'zero' },
        { source: 'coinbase', currency: 'GBP', reason: 'stale (900 s old)' },
        { source: 'coinbase', currency: 'ETHEREUM', reason: 'negative' },
      ]),
    );
    // USD is 1 by definition, recorded as such
    expect(choice.rates.USD?.toFixed()).toBe('1');
    expect(choice.origins.USD).toEqual({ source: 'fixed', takenAt: now });
  });

  it('passes over a source that failed as a whole, and keeps it in the list of failures', () => {
    const choice = chooseRates(
      [
        { source: 'coinbase', error: 'timed out' },
        { source: 'kraken', answer: second },
      ],
      now,
      600_000,
    );
    expect(choice.origins.BITCOIN?.source).toBe('kraken');
    expect(choice.failed).toEqual([{ source: 'coinbase', error: 'timed out' }]);
  });

  it('leaves every currency missing when nothing answered', () => {
    const choice = chooseRates([{ source: 'coinbase', error: 'HTTP 503' }], now, 600_000);
    expect(choice.missing).toHaveLength(CURRENCIES.length - 1);
    expect(Object.keys(choice.rates)).toEqual(['USD']);
  });
});

describe('the rates live pricing refuses', () => {
  it('names the needed currencies older than the limit, never USD', () => {
    const origins = {
      BITCOIN: { source: 'coinbase', takenAt: ago(601) },
      EUR: { source: 'kraken', takenAt: ago(600) },
      USD: { source: 'bundled', takenAt: ago(99999) },
    };
    expect(staleRates(origins, ['BITCOIN', 'EUR', 'USD', 'BITCOIN'], now, 600_000)).toEqual([{ currency: 'BITCOIN', ageSeconds: 601, source: 'coinbase' }]);
    expect(staleRates(origins, ['GBP'], now, 600_000)).toEqual([{ currency: 'GBP', ageSeconds: -1, source: null }]);
  });
});
