import { decideCurrencyChange, PAYER_CURRENCY_CHANGES_PER_WINDOW, PAYER_CURRENCY_WINDOW_SECONDS } from './currency-change';

const now = new Date('2026-11-21T10:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);

describe('decideCurrencyChange', () => {
  it.each([true, false])('the currency already set is a no-op (payer: %p)', (byPayer) => {
    expect(decideCurrencyChange({ current: 'EUR', requested: 'EUR', byPayer, window: { startedAt: ago(10), changes: 99 }, now })).toEqual({
      kind: 'unchanged',
    });
  });

  it('does not count a keyed caller', () => {
    expect(decideCurrencyChange({ current: 'EUR', requested: 'USD', byPayer: false, window: { startedAt: ago(10), changes: 99 }, now })).toEqual({
      kind: 'apply',
      window: null,
    });
  });

  it("opens a window at a payer's first change", () => {
    expect(decideCurrencyChange({ current: 'EUR', requested: 'USD', byPayer: true, window: null, now })).toEqual({
      kind: 'apply',
      window: { startedAt: now, changes: 1 },
    });
  });

  it('counts changes inside the window up to the cap, then refuses until it ends', () => {
    const startedAt = ago(600);
    expect(
      decideCurrencyChange({ current: 'EUR', requested: 'USD', byPayer: true, window: { startedAt, changes: PAYER_CURRENCY_CHANGES_PER_WINDOW - 1 }, now }),
    ).toEqual({ kind: 'apply', window: { startedAt, changes: PAYER_CURRENCY_CHANGES_PER_WINDOW } });
    expect(
      decideCurrencyChange({ current: 'EUR', requested: 'USD', byPayer: true, window: { startedAt, changes: PAYER_CURRENCY_CHANGES_PER_WINDOW }, now }),
    ).toEqual({ kind: 'refused', retryAfterSeconds: PAYER_CURRENCY_WINDOW_SECONDS - 600 });
  });

  it('starts a new window once the old one has ended', () => {
    const window = { startedAt: ago(PAYER_CURRENCY_WINDOW_SECONDS), changes: PAYER_CURRENCY_CHANGES_PER_WINDOW };
    expect(decideCurrencyChange({ current: 'EUR', requested: 'USD', byPayer: true, window, now })).toEqual({
      kind: 'apply',
      window: { startedAt: now, changes: 1 },
    });
  });
});
