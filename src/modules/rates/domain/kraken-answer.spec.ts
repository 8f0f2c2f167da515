import { Money } from '../../../shared/money/money';
import { krakenPath, parseKrakenAnswer } from './kraken-answer';
import { chooseRates } from './rate-choice';
import { SourceAnswerError } from './source-answer';

const at = new Date('2026-11-27T10:00:00Z');
const ticker = (last: unknown) => ({ a: ['95001.0', '1', '1.000'], b: ['94999.0', '1', '1.000'], c: [last, '0.00100000'], v: ['1', '2'] });
const body = (result: Record<string, unknown>) => JSON.stringify({ error: [], result });

describe('Kraken Ticker answers', () => {
  it('asks each USD pair once', () => {
    expect(krakenPath()).toMatch(/^\/0\/public\/Ticker\?pair=XBTUSD,ETHUSD,/);
    expect(krakenPath().match(/USDCUSD/g)).toHaveLength(1);
  });

  it("reads the last trade price under Kraken's own pair names", () => {
    const answer = parseKrakenAnswer(
      body({ XXBTZUSD: ticker('95000.10000'), XETHZUSD: ticker('3100.5'), ZEURZUSD: ticker('1.16010'), XDGUSD: ticker('0.1601') }),
      at,
    );
    expect(answer.BITCOIN).toEqual({ usd: expect.anything(), takenAt: at });
    expect('usd' in answer.BITCOIN! && answer.BITCOIN.usd.toFixed()).toBe('95000.1');
    expect('usd' in answer.ETHEREUM! && answer.ETHEREUM.usd.toFixed()).toBe('3100.5');
    expect('usd' in answer.EUR! && answer.EUR.usd.toFixed()).toBe('1.1601');
    expect('usd' in answer.DOGECOIN! && answer.DOGECOIN.usd.toFixed()).toBe('0.1601');
    // pairs the answer lacks are left to the other sources
    expect(answer.SOLANA).toBeUndefined();
    expect(answer.JPY).toBeUndefined();
  });

  it.each([
    ['zero', '0.00000', 'zero'],
    ['negative', '-1.5', 'negative'],
    ['not a number', 'n/a', 'not a number'],
    ['missing', undefined, 'not a number'],
  ])('marks a last price that is %s as a problem', (_what, last, problem) => {
    const answer = parseKrakenAnswer(body({ XXBTZUSD: ticker(last), XETHZUSD: ticker('3100.5') }), at);
    expect(answer.BITCOIN).toEqual({ problem });
    expect('usd' in answer.ETHEREUM!).toBe(true);
  });

  it.each([
    ['an error list', JSON.stringify({ error: ['EQuery:Unknown asset pair'] }), /EQuery:Unknown asset pair/],
    ['no result', JSON.stringify({ error: [] }), /no result/],
    ['not JSON', 'oops', /not JSON/],
  ])('fails the whole answer on %s', (_what, text, message) => {
    expect(() => parseKrakenAnswer(text, at)).toThrow(SourceAnswerError);
    expect(() => parseKrakenAnswer(text, at)).toThrow(message);
  });

  it('is passed over when its answer is older than the allowed age', () => {
    const old = parseKrakenAnswer(body({ XXBTZUSD: ticker('95000.1') }), new Date(at.getTime() - 601_000));
    expect(
      chooseRates([{ source: 'kraken', answer: old }], at, { maxAgeMs: 600_000, maxSpread: new Money('0.05'), maxJump: new Money('0.2'), recent: {} }).missing,
    ).toContain('BITCOIN');
  });
});
