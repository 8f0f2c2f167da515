import { CURRENCIES } from '../../../shared/money/currency';
import { type Amount, Money } from '../../../shared/money/money';
import { chooseRates, ChoiceSettings, isSourceOrigin, quotedBySources, SourceResult, staleRates } from './rate-choice';
import { positivePrice } from './source-answer';
import type { SourceAnswer } from './source-answer';

const now = new Date('2026-11-27T10:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const ok = (rate: string, age = 0) => ({ usd: new Money(rate), takenAt: ago(age) });
const settings = (over: Partial<ChoiceSettings> = {}): ChoiceSettings => ({
  maxAgeMs: 600_000,
  maxSpread: new Money('0.05'),
  maxJump: new Money('0.2'),
  recent: {},
  ...over,
});
/** One answer per source for BITCOIN, in the order given. */
const bitcoin = (...rates: Array<[string, string]>): SourceResult[] => rates.map(([source, rate]) => ({ source, answer: { BITCOIN: ok(rate) } }));

describe('choosing a rate from three answers or more', () => {
  it('takes the median of three that agree, naming the sources in their configured order', () => {
    const choice = chooseRates(bitcoin(['coinbase', '95100'], ['kraken', '95000'], ['coingecko', '94900']), now, settings());
    expect(choice.rates.BITCOIN?.toFixed()).toBe('95000');
    expect(choice.origins.BITCOIN).toEqual({ source: 'median:coinbase,kraken,coingecko', takenAt: now });
    expect(choice.dropped).toEqual([]);
  });

  it('drops an answer off by a factor of millions and takes the median of the rest (the lower middle of two)', () => {
    const choice = chooseRates(bitcoin(['coinbase', '0.095'], ['kraken', '95000'], ['coingecko', '96000']), now, settings());
    // median of three: 95000; 0.095 is 99.9999 % away, 96000 is 1.05 % away
    expect(choice.rates.BITCOIN?.toFixed()).toBe('95000');
    expect(choice.origins.BITCOIN?.source).toBe('median:kraken,coingecko');
    expect(choice.dropped).toEqual([{ source: 'coinbase', currency: 'BITCOIN', reason: 'outlier', rate: '0.095', against: '95000' }]);
  });

  it('measures the spread from the lower middle of an even count, inclusive at the limit', () => {
    // sorted 100, 105, 110, 200: m = 105; 100 is 4.76 % away, 110 is 4.76 %, 200 is 90 %
    const choice = chooseRates(bitcoin(['a', '200'], ['b', '110'], ['c', '105'], ['d', '100']), now, settings());
    expect(choice.rates.BITCOIN?.toFixed()).toBe('105');
    expect(choice.origins.BITCOIN?.source).toBe('median:b,c,d');
    expect(choice.dropped.map((d) => d.source)).toEqual(['a']);
    // exactly at the spread stays: |105 - 100| / 100 = 0.05
    const atLimit = chooseRates(bitcoin(['a', '100'], ['b', '105'], ['c', '100']), now, settings());
    expect(atLimit.rates.BITCOIN?.toFixed()).toBe('100');
    expect(atLimit.dropped).toEqual([]);
  });

  it('takes nothing when fewer than two answers are left, and says the one left was not corroborated', () => {
    const choice = chooseRates(bitcoin(['a', '50'], ['b', '100'], ['c', '200']), now, settings());
    expect(choice.rates.BITCOIN).toBeUndefined();
    expect(choice.missing).toContain('BITCOIN');
    expect(choice.dropped).toEqual([
      { source: 'a', currency: 'BITCOIN', reason: 'outlier', rate: '50', against: '100' },
      { source: 'c', currency: 'BITCOIN', reason: 'outlier', rate: '200', against: '100' },
      { source: 'b', currency: 'BITCOIN', reason: 'uncorroborated', rate: '100', against: '100' },
    ]);
  });

  it('takes the oldest time of the answers used', () => {
    const choice = chooseRates(
      [
        { source: 'a', answer: { EUR: ok('1.16', 30) } },
        { source: 'b', answer: { EUR: ok('1.161', 5) } },
        { source: 'c', answer: { EUR: ok('1.159', 0) } },
      ],
      now,
      settings(),
    );
    expect(choice.rates.EUR?.toFixed()).toBe('1.16');
    expect(choice.origins.EUR).toEqual({ source: 'median:a,b,c', takenAt: ago(30) });
  });

  it('follows RATES_MAX_SPREAD', () => {
    const wide = chooseRates(bitcoin(['a', '100'], ['b', '130'], ['c', '120']), now, settings({ maxSpread: new Money('0.1') }));
    // m = 120; 100 is 16.7 % away, 130 is 8.3 %
    expect(wide.rates.BITCOIN?.toFixed()).toBe('120');
    expect(wide.origins.BITCOIN?.source).toBe('median:b,c');
  });
});

describe('choosing a rate from two answers', () => {
  it('takes the lower one when they are within the spread of each other', () => {
    const choice = chooseRates(bitcoin(['coinbase', '95000'], ['kraken', '94000']), now, settings());
    expect(choice.rates.BITCOIN?.toFixed()).toBe('94000');
    expect(choice.origins.BITCOIN?.source).toBe('median:coinbase,kraken');
  });

  it('takes nothing when they disagree (the spread measured from the lower one) and drops both', () => {
    // 100 and 105.1: 5.1 % from the lower one, 4.85 % from the higher: not within the spread of each other
    const choice = chooseRates(bitcoin(['coinbase', '105.1'], ['kraken', '100']), now, settings());
    expect(choice.rates.BITCOIN).toBeUndefined();
    expect(choice.missing).toContain('BITCOIN');
    expect(choice.dropped).toEqual([
      { source: 'kraken', currency: 'BITCOIN', reason: 'disagreement', rate: '100', against: '105.1' },
      { source: 'coinbase', currency: 'BITCOIN', reason: 'disagreement', rate: '105.1', against: '100' },
    ]);
  });
});

describe('choosing a rate from one answer', () => {
  it('takes it with no recent rate from a source, naming the source', () => {
    const choice = chooseRates(bitcoin(['kraken', '95000']), now, settings());
    expect(choice.rates.BITCOIN?.toFixed()).toBe('95000');
    expect(choice.origins.BITCOIN).toEqual({ source: 'kraken', takenAt: now });
  });

  it('takes it within RATES_MAX_JUMP of every rate taken from a source in the last hour', () => {
    const recent = { BITCOIN: { min: new Money('80000'), max: new Money('95000') } };
    // 95000 from 80000: 18.75 %; from 95000: 0
    expect(chooseRates(bitcoin(['kraken', '95000']), now, settings({ recent })).rates.BITCOIN?.toFixed()).toBe('95000');
    // exactly 20 % above the lowest stays
    expect(chooseRates(bitcoin(['kraken', '96000']), now, settings({ recent })).rates.BITCOIN?.toFixed()).toBe('96000');
  });

  it('takes nothing when it jumps further from any recent rate, up or down', () => {
    const recent = { BITCOIN: { min: new Money('80000'), max: new Money('95000') } };
    const up = chooseRates(bitcoin(['kraken', '96001']), now, settings({ recent }));
    expect(up.rates.BITCOIN).toBeUndefined();
    expect(up.dropped).toEqual([{ source: 'kraken', currency: 'BITCOIN', reason: 'jump', rate: '96001', against: '80000' }]);
    const down = chooseRates(bitcoin(['kraken', '75999']), now, settings({ recent }));
    expect(down.rates.BITCOIN).toBeUndefined();
    expect(down.dropped[0]).toMatchObject({ reason: 'jump', against: '95000' });
    // a larger RATES_MAX_JUMP lets it through
    expect(chooseRates(bitcoin(['kraken', '96001']), now, settings({ recent, maxJump: new Money('0.5') })).rates.BITCOIN?.toFixed()).toBe('96001');
  });
});

describe('answers that do not count', () => {
  const first: SourceAnswer = { BITCOIN: ok('95000'), EUR: { problem: 'zero' }, GBP: ok('1.31', 900), ETHEREUM: { problem: 'negative' } };
  const second: SourceAnswer = { BITCOIN: ok('94000'), EUR: ok('1.16'), GBP: ok('1.32', 5), SOLANA: ok('140') };

  it('skips zero, negative and stale answers per currency, and a source that failed as a whole', () => {
    const choice = chooseRates(
      [
        { source: 'coinbase', answer: first },
        { source: 'kraken', answer: second },
        { source: 'coingecko', error: 'timed out' },
      ],
      now,
      settings(),
    );
    expect(choice.rates.BITCOIN?.toFixed()).toBe('94000');
    expect(choice.rates.EUR?.toFixed()).toBe('1.16');
    expect(choice.origins.EUR?.source).toBe('kraken');
    expect(choice.origins.GBP).toEqual({ source: 'kraken', takenAt: ago(5) });
    expect(choice.rates.ETHEREUM).toBeUndefined();
    expect(choice.missing).toContain('ETHEREUM');
    expect(choice.failed).toEqual([{ source: 'coingecko', error: 'timed out' }]);
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

  it('reads an exponent beyond any range as no number, never Infinity, and keeps the other currencies', () => {
    expect(positivePrice('1e9000000000000001')).toBe('not a finite number');
    expect(positivePrice('-1e9000000000000001')).toBe('not a finite number');
    expect(positivePrice('1e9000000000000000')).toBe('too large');
    expect(positivePrice('1e48')).toBe('too large');
    expect(positivePrice('1e-9000000000000001')).toBe('zero');
    expect(positivePrice('1e-31')).toBe('zero at 30 fractional digits');
    expect((positivePrice('999999999999999999999999999999999999999999999999.4') as Amount).toFixed()).toBe(
      '999999999999999999999999999999999999999999999999.4',
    );
    const choice = chooseRates(
      [
        { source: 'kraken', answer: { BITCOIN: { problem: positivePrice('1e9000000000000001') as string }, ETHEREUM: ok('3000') } },
        // a value that reached the choice some other way is checked again
        { source: 'feed', answer: { BITCOIN: ok('95000'), ETHEREUM: { usd: new Money(Infinity), takenAt: now } } },
      ],
      now,
      settings(),
    );
    expect(choice.rates.BITCOIN?.toFixed()).toBe('95000');
    expect(choice.rates.ETHEREUM?.toFixed()).toBe('3000');
    expect(choice.skipped).toEqual([
      { source: 'kraken', currency: 'BITCOIN', reason: 'not a finite number' },
      { source: 'feed', currency: 'ETHEREUM', reason: 'not a finite number' },
    ]);
  });

  it('leaves every currency missing when nothing answered', () => {
    const choice = chooseRates([{ source: 'coinbase', error: 'HTTP 503' }], now, settings());
    expect(choice.missing).toHaveLength(CURRENCIES.length - 1);
    expect(Object.keys(choice.rates)).toEqual(['USD']);
  });
});

describe('rates taken from sources', () => {
  it('are those naming a configured source or a median, not the bundled table or an import', () => {
    expect(isSourceOrigin('kraken', ['coinbase', 'kraken'])).toBe(true);
    expect(isSourceOrigin('median:coinbase,kraken', ['coinbase'])).toBe(true);
    // A median of sources all removed since (RATE_SOURCES changed) is no longer a live source's rate.
    expect(isSourceOrigin('median:coinbase,coingecko', ['kraken'])).toBe(false);
    expect(isSourceOrigin('median:http://a/r.json?x=1,2,http://b/r.json', ['http://a/r.json?x=1,2'])).toBe(true);
    expect(isSourceOrigin('median:coinbase2,kraken', ['coinbase'])).toBe(false);
    expect(isSourceOrigin('bundled', ['coinbase'])).toBe(false);
    expect(isSourceOrigin('import', ['coinbase'])).toBe(false);
  });
});

describe('currencies a source quotes', () => {
  const kraken = [{ kind: 'kraken', name: 'kraken' }];
  const feed = [{ kind: 'url', name: 'http://feed/rates.json' }];
  it('are those a named exchange carries, or whose rate in force a source gave', () => {
    expect(quotedBySources('ETHEREUM', kraken, { source: 'bundled', takenAt: now })).toBe(true);
    // Kraken has no BNB pair: the table's rate is all there is
    expect(quotedBySources('BINANCE_COIN', kraken, { source: 'bundled', takenAt: now })).toBe(false);
    expect(quotedBySources('CHF', [{ kind: 'coinbase', name: 'coinbase' }], undefined)).toBe(true);
    expect(quotedBySources('CHF', [{ kind: 'coingecko', name: 'coingecko' }], undefined)).toBe(false);
    // a URL source quotes what it has answered
    expect(quotedBySources('ETHEREUM', feed, { source: 'http://feed/rates.json', takenAt: ago(9999) })).toBe(true);
    expect(quotedBySources('ETHEREUM', feed, { source: 'median:http://feed/rates.json,b', takenAt: ago(9999) })).toBe(true);
    // ...but not what only sources removed since answered: BNB's median of coinbase and coingecko, now only kraken
    expect(quotedBySources('ETHEREUM', feed, { source: 'median:a,b', takenAt: ago(9999) })).toBe(false);
    expect(quotedBySources('BINANCE_COIN', kraken, { source: 'median:coinbase,coingecko', takenAt: now })).toBe(false);
    expect(quotedBySources('USDC', feed, { source: 'import', takenAt: now })).toBe(false);
    expect(quotedBySources('USD', feed, { source: 'http://feed/rates.json', takenAt: now })).toBe(false);
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
