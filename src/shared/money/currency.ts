/** Every currency a price, quote, invoice or payment may be denominated in (interface "Currency"). */
export const CURRENCIES = [
  'BITCOIN',
  'ETHEREUM',
  'USDT',
  'USDC',
  'USDC_NATIVE',
  'SOLANA',
  'BINANCE_COIN',
  'RIPPLE',
  'POLYGON',
  'TRON',
  'LITECOIN',
  'BITCOIN_CASH',
  'DOGECOIN',
  'USD',
  'EUR',
  'CHF',
  'GBP',
  'AUD',
  'JPY',
  'CNY',
  'CAD',
  'HKD',
  'SGD',
  'SEK',
  'KRW',
  'NOK',
  'NZD',
  'INR',
  'MXN',
  'TWD',
  'ZAR',
  'BRL',
  'DKK',
  'PLN',
  'THB',
  'ILS',
  'IDR',
  'CZK',
  'AED',
  'TRY',
  'HUF',
  'CLP',
  'SAR',
  'PHP',
  'MYR',
  'COP',
  'RUB',
  'RON',
  'PEN',
] as const;

export type Currency = (typeof CURRENCIES)[number];

export const CRYPTO_CURRENCIES: readonly Currency[] = [
  'BITCOIN',
  'ETHEREUM',
  'USDT',
  'USDC',
  'USDC_NATIVE',
  'SOLANA',
  'BINANCE_COIN',
  'RIPPLE',
  'POLYGON',
  'TRON',
  'LITECOIN',
  'BITCOIN_CASH',
  'DOGECOIN',
];

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && (CURRENCIES as readonly string[]).includes(value);
}

export function isCrypto(currency: Currency): boolean {
  return CRYPTO_CURRENCIES.includes(currency);
}

/**
 * Tickers people and wallets use for the crypto currencies, read as the interface's names wherever a
 * request names a currency (`BTC` is `BITCOIN`). Answers always use the interface's names.
 */
export const CURRENCY_TICKERS: Readonly<Record<string, Currency>> = {
  BTC: 'BITCOIN',
  XBT: 'BITCOIN',
  ETH: 'ETHEREUM',
  SOL: 'SOLANA',
  BNB: 'BINANCE_COIN',
  XRP: 'RIPPLE',
  POL: 'POLYGON',
  MATIC: 'POLYGON',
  TRX: 'TRON',
  LTC: 'LITECOIN',
  BCH: 'BITCOIN_CASH',
  DOGE: 'DOGECOIN',
};

/**
 * A request's currency name in its canonical form: any letter case (`usd` is `USD`, `btc` is `BITCOIN`),
 * a ticker replaced by the currency it names; anything else as it came.
 */
export function canonicalCurrency(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const upper = value.toUpperCase();
  if (Object.prototype.hasOwnProperty.call(CURRENCY_TICKERS, upper)) return CURRENCY_TICKERS[upper];
  return isCurrency(upper) ? upper : value;
}
