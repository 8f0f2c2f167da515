import { Money } from '../../../shared/money/money';
import { coingeckoPath, parseCoingeckoAnswer } from './coingecko-answer';
import { chooseRates } from './rate-choice';
import { SourceAnswerError } from './source-answer';

const at = new Date('2026-11-27T10:00:00Z');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

describe('CoinGecko simple price answers', () => {
  it('asks the USD price of each coin with its update time', () => {
    expect(coingeckoPath()).toMatch(/^\/api\/v3\/simple\/price\?ids=bitcoin,ethereum,tether,usd-coin,/);
    expect(coingeckoPath()).toMatch(/&vs_currencies=usd&include_last_updated_at=true$/);
  });

  it('reads JSON numbers from their text, never through a float, with last_updated_at as their time', () => {
    const updated = seconds(at) - 30;
    // 17 significant digits: a JavaScript number would lose the last ones
    const text = `{"bitcoin":{"usd":95000.123456789012345,"last_updated_at":${updated}},"ethereum":{"usd":3.1e3,"last_updated_at":${updated}},"usd-coin":{"usd":0.99990001}}`;
    const answer = parseCoingeckoAnswer(text, at);
    expect(answer.BITCOIN).toEqual({ usd: expect.anything(), takenAt: new Date(updated * 1000) });
    expect('usd' in answer.BITCOIN! && answer.BITCOIN.usd.toFixed()).toBe('95000.123456789012345');
    expect('usd' in answer.ETHEREUM! && answer.ETHEREUM.usd.toFixed()).toBe('3100');
    // without last_updated_at the arrival counts
    expect(answer.USDC).toEqual({ usd: expect.anything(), takenAt: at });
    expect(answer.EUR).toBeUndefined();
  });

  it('never takes a time later than the answer arrived', () => {
    const answer = parseCoingeckoAnswer(`{"bitcoin":{"usd":95000,"last_updated_at":${seconds(at) + 3600}}}`, at);
    expect(answer.BITCOIN).toEqual({ usd: expect.anything(), takenAt: at });
  });

  it.each([
    ['zero', '0', 'zero'],
    ['negative', '-95000', 'negative'],
    ['a string that is not a number', '"soon"', 'not a number'],
    ['null', 'null', 'not a number'],
  ])('marks a price that is %s as a problem', (_what, price, problem) => {
    const answer = parseCoingeckoAnswer(`{"bitcoin":{"usd":${price},"last_updated_at":${seconds(at)}},"ethereum":{"usd":3100}}`, at);
    expect(answer.BITCOIN).toEqual({ problem });
    expect('usd' in answer.ETHEREUM!).toBe(true);
  });

  it.each([
    ['a rate-limit status', JSON.stringify({ status: { error_code: 429, error_message: 'You have exceeded the Rate Limit' } }), /429: You have exceeded/],
    ['an error field', JSON.stringify({ error: 'invalid vs_currency' }), /invalid vs_currency/],
    ['not JSON', '', /not JSON/],
  ])('fails the whole answer on %s', (_what, text, message) => {
    expect(() => parseCoingeckoAnswer(text, at)).toThrow(SourceAnswerError);
    expect(() => parseCoingeckoAnswer(text, at)).toThrow(message);
  });

  it('is passed over when last_updated_at is older than the allowed age', () => {
    const answer = parseCoingeckoAnswer(`{"bitcoin":{"usd":95000,"last_updated_at":${seconds(at) - 900}}}`, at);
    const choice = chooseRates([{ source: 'coingecko', answer }], at, {
      maxAgeMs: 600_000,
      maxSpread: new Money('0.05'),
      maxJump: new Money('0.2'),
      recent: {},
    });
    expect(choice.rates.BITCOIN).toBeUndefined();
    expect(choice.skipped).toEqual([{ source: 'coingecko', currency: 'BITCOIN', reason: 'stale (900 s old)' }]);
  });
});
