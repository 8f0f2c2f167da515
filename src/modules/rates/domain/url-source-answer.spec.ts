import { Money } from '../../../shared/money/money';
import { chooseRates } from './rate-choice';
import { SourceAnswerError } from './source-answer';
import { parseUrlSourceAnswer } from './url-source-answer';

const at = new Date('2026-11-27T10:00:00Z');

describe('URL source answers (the rates:import shape)', () => {
  it('reads USD values exactly, with taken_at as their time, ignoring names that are not currencies', () => {
    const answer = parseUrlSourceAnswer('{"taken_at":"2026-11-27 09:59:00","rates":{"BITCOIN":"95000.12","EUR":1.16,"USD":"1","XYZ":"2"}}', at);
    expect(answer.BITCOIN).toEqual({ usd: expect.anything(), takenAt: new Date('2026-11-27T09:59:00Z') });
    expect('usd' in answer.BITCOIN! && answer.BITCOIN.usd.toFixed()).toBe('95000.12');
    expect('usd' in answer.EUR! && answer.EUR.usd.toFixed()).toBe('1.16');
    expect(answer.USD).toBeUndefined();
    expect(Object.keys(answer)).toEqual(['BITCOIN', 'EUR']);
  });

  it('takes the arrival time without taken_at', () => {
    expect(parseUrlSourceAnswer('{"rates":{"EUR":"1.16"}}', at).EUR).toEqual({ usd: expect.anything(), takenAt: at });
  });

  it.each([
    ['zero', '"0"', 'zero'],
    ['negative', '"-1.16"', 'negative'],
    ['not a number', '"1,16"', 'not a number'],
  ])('marks %s as a problem', (_what, value, problem) => {
    expect(parseUrlSourceAnswer(`{"rates":{"EUR":${value}}}`, at).EUR).toEqual({ problem });
  });

  it.each([
    ['no rates', '{"taken_at":"2026-11-27 09:59:00"}', /no rates/],
    ['a taken_at that is not a time', '{"taken_at":"yesterday","rates":{"EUR":"1.16"}}', /taken_at/],
    ['not JSON', 'rates: 1', /not JSON/],
  ])('fails the whole answer on %s', (_what, text, message) => {
    expect(() => parseUrlSourceAnswer(text, at)).toThrow(SourceAnswerError);
    expect(() => parseUrlSourceAnswer(text, at)).toThrow(message);
  });

  it('is passed over when taken_at is older than the allowed age', () => {
    const answer = parseUrlSourceAnswer('{"taken_at":"2026-11-27 09:00:00","rates":{"EUR":"1.16"}}', at);
    expect(
      chooseRates([{ source: 'http://feed', answer }], at, { maxAgeMs: 600_000, maxSpread: new Money('0.05'), maxJump: new Money('0.2'), recent: {} }).missing,
    ).toContain('EUR');
  });
});
