import { CRYPTO_CURRENCIES, CURRENCIES } from '../../../shared/money/currency';
import { currencyFacts, tickerOf } from './currency-facts';

const catalog = [
  { currency: 'BITCOIN', decimals: 8, type: 'CRYPTOCURRENCY' },
  { currency: 'ETHEREUM', decimals: 18, type: 'CRYPTOCURRENCY' },
  { currency: 'USDT', decimals: 6, type: 'CRYPTOCURRENCY' },
  { currency: 'USDT', decimals: 18, type: 'CRYPTOCURRENCY' },
  { currency: 'USDC_NATIVE', decimals: 6, type: 'CRYPTOCURRENCY' },
  { currency: 'USD', decimals: 2, type: 'FIAT' },
];

describe('tickerOf', () => {
  it.each([
    ['BITCOIN', 'BTC'],
    ['ETHEREUM', 'ETH'],
    ['POLYGON', 'POL'],
    ['DOGECOIN', 'DOGE'],
    ['USDC_NATIVE', 'USDC'],
    ['USDT', 'USDT'],
    ['EUR', 'EUR'],
  ])('%s reads as %s', (currency, ticker) => {
    expect(tickerOf(currency)).toBe(ticker);
  });
});

describe('currencyFacts', () => {
  it("gives a coin its ticker, its name and its first catalog entry's decimals", () => {
    const facts = currencyFacts(['BITCOIN', 'ETHEREUM', 'USDT', 'USDC_NATIVE'], catalog);
    expect(facts.BITCOIN).toEqual({ ticker: 'BTC', coin: true, decimals: 8, name: 'Bitcoin' });
    expect(facts.ETHEREUM).toEqual({ ticker: 'ETH', coin: true, decimals: 18, name: 'Ether' });
    expect(facts.USDT).toEqual({ ticker: 'USDT', coin: true, decimals: 6, name: 'Tether USD' });
    expect(facts.USDC_NATIVE).toEqual({ ticker: 'USDC', coin: true, decimals: 6, name: 'USD Coin, native' });
  });

  it('leaves a fiat currency to the browser (its name and minor unit in the payer language)', () => {
    expect(currencyFacts(['USD', 'JPY'], catalog)).toEqual({
      USD: { ticker: 'USD', coin: false, decimals: null, name: null },
      JPY: { ticker: 'JPY', coin: false, decimals: null, name: null },
    });
  });

  it('refuses a coin the catalog does not know', () => {
    expect(() => currencyFacts(['LITECOIN'], catalog)).toThrow(/LITECOIN/);
  });

  it('names every coin of the interface', () => {
    // The interface's coins, from the kernel's currency list (a coin added there must get a name and a ticker here).
    const coins = CRYPTO_CURRENCIES;
    expect(coins.length).toBeGreaterThan(0);
    const all = currencyFacts(
      CURRENCIES,
      coins.map((currency) => ({ currency, decimals: 8, type: 'CRYPTOCURRENCY' })),
    );
    for (const coin of coins) {
      expect(all[coin].name).toEqual(expect.any(String));
      expect(all[coin].ticker.length).toBeLessThanOrEqual(4);
    }
    expect(Object.values(all).filter((f) => f.coin)).toHaveLength(coins.length);
  });
});
