import type { Currency } from '../../../shared/money/currency';
import { CURRENCIES, CRYPTO_CURRENCIES } from '../../../shared/money/currency';
import { inverse, isObject, positivePrice, quote, readJson, SourceAnswer, SourceAnswerError, textOf } from './source-answer';

/** Coinbase's codes for our crypto currencies (fiat currencies go by their ISO code); the first one present is used. */
export const COINBASE_SYMBOLS: Partial<Record<Currency, readonly string[]>> = {
  BITCOIN: ['BTC'],
  ETHEREUM: ['ETH'],
  USDT: ['USDT'],
  USDC: ['USDC'],
  USDC_NATIVE: ['USDC'],
  SOLANA: ['SOL'],
  BINANCE_COIN: ['BNB'],
  RIPPLE: ['XRP'],
  POLYGON: ['POL', 'MATIC'],
  TRON: ['TRX'],
  LITECOIN: ['LTC'],
  BITCOIN_CASH: ['BCH'],
  DOGECOIN: ['DOGE'],
};

export function coinbaseSymbols(currency: Currency): readonly string[] {
  return COINBASE_SYMBOLS[currency] ?? (CRYPTO_CURRENCIES.includes(currency) ? [] : [currency]);
}

/** The request: every rate against one US dollar. */
export const COINBASE_PATH = '/v2/exchange-rates?currency=USD';

/**
 * Reads Coinbase's public exchange-rates answer for base USD:
 * `{"data": {"currency": "USD", "rates": {"BTC": "0.0000105", "EUR": "0.86", ...}}}`, each rate the
 * units of that currency one US dollar buys, as decimal text. The USD value of one unit is 1 / rate,
 * computed exactly and rounded once. The answer carries no time: the time it arrived counts.
 * An error answer is `{"errors": [{"id": ..., "message": ...}]}`.
 */
export function parseCoinbaseAnswer(body: string, fetchedAt: Date): SourceAnswer {
  const doc = readJson(body);
  if (isObject(doc) && Array.isArray(doc.errors) && doc.errors.length) {
    const first = doc.errors[0] as { id?: unknown; message?: unknown };
    throw new SourceAnswerError(`error ${textOf(first?.id)}: ${textOf(first?.message)}`.trim());
  }
  const data = isObject(doc) ? doc.data : undefined;
  if (!isObject(data) || !isObject(data.rates)) throw new SourceAnswerError('no data.rates object');
  if (data.currency !== 'USD') throw new SourceAnswerError(`rates are against ${String(data.currency)}, not USD`);
  const rates = data.rates;
  const out: SourceAnswer = {};
  for (const currency of CURRENCIES) {
    if (currency === 'USD') continue;
    const symbol = coinbaseSymbols(currency).find((s) => rates[s] !== undefined);
    if (!symbol) continue;
    out[currency] = quote(inverse(positivePrice(rates[symbol]), rates[symbol]), fetchedAt);
  }
  return out;
}
