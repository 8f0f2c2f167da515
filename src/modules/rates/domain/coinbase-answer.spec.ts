import { Money } from '../../../shared/money/money';
import { parseCoinbaseAnswer } from './coinbase-answer';
import { chooseRates } from './rate-choice';
import { SourceAnswerError } from './source-answer';

const at = new Date('2026-11-27T10:00:00Z');
const body = (rates: Record<string, unknown>) => JSON.stringify({ data: { currency: 'USD', rates } });

describe('Coinbase exchange-rates answers', () => {
  it('turns units per dollar into the exact USD value of one unit, taken when the answer arrived', () => {
    const answer = parseCoinbaseAnswer(body({ BTC: '0.00001', EUR: '0.8', POL: '4', USDC: '1.0001', XYZ: '3' }), at);
    expect(answer.BITCOIN).toEqual({ usd: expect.anything(), takenAt: at });
    expect('usd' in answer.BITCOIN! && answer.BITCOIN.usd.toFixed()).toBe('100000');
    expect('usd' in answer.EUR! && answer.EUR.usd.toFixed()).toBe('1.25');
    expect('usd' in answer.POLYGON! && answer.POLYGON.usd.toFixed()).toBe('0.25');
    // 1 / 1.0001, rounded half-up once at 30 fractional digits
    expect('usd' in answer.USDC! && answer.USDC.usd.toFixed(30)).toBe('0.999900009999000099990000999900');
    expect('usd' in answer.USDC_NATIVE! && answer.USDC_NATIVE.usd.toFixed(30)).toBe('0.999900009999000099990000999900');
    // what Coinbase does not list is left to the other sources; USD is never asked
    expect(answer.SOLANA).toBeUndefined();
    expect(answer.USD).toBeUndefined();
  });

  it.each([
    ['zero', '0', 'zero'],
    ['negative', '-0.8', 'negative'],
    ['not a number', 'abc', 'not a number'],
    ['a JSON null', null, 'not a number'],
    ['an object', { value: '1' }, 'not a number'],
  ])('marks %s as a problem for that currency only', (_what, value, problem) => {
    const answer = parseCoinbaseAnswer(body({ EUR: value, GBP: '0.75' }), at);
    expect(answer.EUR).toEqual({ problem });
    expect('usd' in answer.GBP!).toBe(true);
  });

  it.each([
    ['an error answer', JSON.stringify({ errors: [{ id: 'not_found', message: 'Invalid currency' }] }), /not_found: Invalid currency/],
    ['another base currency', JSON.stringify({ data: { currency: 'EUR', rates: { BTC: '0.00001' } } }), /not USD/],
    ['no rates', JSON.stringify({ data: {} }), /data\.rates/],
    ['not JSON', '<html>busy</html>', /not JSON/],
  ])('fails the whole answer on %s', (_what, text, message) => {
    expect(() => parseCoinbaseAnswer(text, at)).toThrow(SourceAnswerError);
    expect(() => parseCoinbaseAnswer(text, at)).toThrow(message);
  });

  it('is passed over when its answer is older than the allowed age', () => {
    const old = parseCoinbaseAnswer(body({ EUR: '0.8' }), new Date(at.getTime() - 11 * 60_000));
    const choice = chooseRates([{ source: 'coinbase', answer: old }], at, {
      maxAgeMs: 600_000,
      maxSpread: new Money('0.05'),
      maxJump: new Money('0.2'),
      recent: {},
    });
    expect(choice.rates.EUR).toBeUndefined();
    expect(choice.skipped).toEqual([{ source: 'coinbase', currency: 'EUR', reason: 'stale (660 s old)' }]);
  });
});
