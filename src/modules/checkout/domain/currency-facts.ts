/**
 * What the checkout page needs to know about each currency to show an amount in it, rendered by the
 * server into the page's data block so the page's script keeps no table of its own: the ticker shown
 * next to an amount, whether it is a coin, a coin's decimals (its smallest unit in the provider catalog)
 * and a coin's name. A fiat currency's name and minor unit come from the browser's Intl data in the
 * payer's language, so they are left null here. Pure.
 */
import { CRYPTO_CURRENCIES, CURRENCY_TICKERS } from '../../../shared/money/currency';

export interface CurrencyFact {
  ticker: string;
  coin: boolean;
  /** A coin's smallest unit in decimal places (the catalog's; a token's are its contract's); null for fiat. */
  decimals: number | null;
  /** A coin's name as payers know it; null for fiat (the browser names it in the page's language). */
  name: string | null;
}

/** A catalog entry as far as the page cares: the currency it is paid in and its smallest unit. */
export interface CatalogCurrency {
  currency: string;
  decimals: number;
  type: string;
}

/** How payers call the coins (the catalog names its providers, e.g. "TRON (TRX)", not the coins). */
const COIN_NAMES: Readonly<Record<string, string>> = {
  BITCOIN: 'Bitcoin',
  ETHEREUM: 'Ether',
  USDT: 'Tether USD',
  USDC: 'USD Coin',
  USDC_NATIVE: 'USD Coin, native',
  SOLANA: 'Solana',
  BINANCE_COIN: 'BNB',
  RIPPLE: 'XRP',
  POLYGON: 'POL',
  TRON: 'TRON',
  LITECOIN: 'Litecoin',
  BITCOIN_CASH: 'Bitcoin Cash',
  DOGECOIN: 'Dogecoin',
};

/** Tickers shown where the currency's own name is not one people use (Circle's native USDC is still "USDC"). */
const DISPLAY_TICKERS: Readonly<Record<string, string>> = { USDC_NATIVE: 'USDC' };

/** The ticker shown next to an amount: the first ticker requests may name the currency by, else its code. */
export function tickerOf(currency: string): string {
  if (DISPLAY_TICKERS[currency]) return DISPLAY_TICKERS[currency];
  const entry = Object.entries(CURRENCY_TICKERS).find(([, named]) => named === currency);
  return entry ? entry[0] : currency;
}

/** The facts of each currency, keyed by its code; a coin's decimals are those of its first crypto entry in the catalog. */
export function currencyFacts(currencies: readonly string[], catalog: readonly CatalogCurrency[]): Record<string, CurrencyFact> {
  const crypto = new Set<string>(CRYPTO_CURRENCIES);
  const facts: Record<string, CurrencyFact> = {};
  for (const currency of currencies) {
    const coin = crypto.has(currency);
    const entry = coin ? catalog.find((p) => p.type === 'CRYPTOCURRENCY' && p.currency === currency) : undefined;
    if (coin && !entry) throw new Error(`the provider catalog has no entry paid in ${currency}`);
    facts[currency] = {
      ticker: tickerOf(currency),
      coin,
      decimals: entry ? entry.decimals : null,
      name: coin ? (COIN_NAMES[currency] ?? currency) : null,
    };
  }
  return facts;
}
