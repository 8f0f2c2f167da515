import type { Currency } from '../../../shared/money/currency';
import { isObject, positivePrice, quote, readJson, SourceAnswer, SourceAnswerError } from './source-answer';

/**
 * Kraken pairs priced in US dollars: the name we ask for and the names the answer may key it by
 * (Kraken answers with its own pair names, XBTUSD as XXBTZUSD). Only pairs Kraken has long listed:
 * one unknown pair makes Kraken refuse the whole request. Currencies missing here are left to the other sources.
 */
export const KRAKEN_PAIRS: Partial<Record<Currency, { ask: string; keys: readonly string[] }>> = {
  BITCOIN: { ask: 'XBTUSD', keys: ['XXBTZUSD', 'XBTUSD'] },
  ETHEREUM: { ask: 'ETHUSD', keys: ['XETHZUSD', 'ETHUSD'] },
  USDT: { ask: 'USDTUSD', keys: ['USDTZUSD', 'USDTUSD'] },
  USDC: { ask: 'USDCUSD', keys: ['USDCUSD'] },
  USDC_NATIVE: { ask: 'USDCUSD', keys: ['USDCUSD'] },
  SOLANA: { ask: 'SOLUSD', keys: ['SOLUSD'] },
  RIPPLE: { ask: 'XRPUSD', keys: ['XXRPZUSD', 'XRPUSD'] },
  POLYGON: { ask: 'POLUSD', keys: ['POLUSD'] },
  TRON: { ask: 'TRXUSD', keys: ['TRXUSD'] },
  LITECOIN: { ask: 'LTCUSD', keys: ['XLTCZUSD', 'LTCUSD'] },
  BITCOIN_CASH: { ask: 'BCHUSD', keys: ['BCHUSD'] },
  DOGECOIN: { ask: 'XDGUSD', keys: ['XDGUSD', 'XXDGZUSD', 'DOGEUSD'] },
  EUR: { ask: 'EURUSD', keys: ['ZEURZUSD', 'EURUSD'] },
  GBP: { ask: 'GBPUSD', keys: ['ZGBPZUSD', 'GBPUSD'] },
};

/** The request: the Ticker of every pair above, once each. */
export function krakenPath(): string {
  const pairs = [...new Set(Object.values(KRAKEN_PAIRS).map((p) => p.ask))];
  return `/0/public/Ticker?pair=${pairs.join(',')}`;
}

/**
 * Reads Kraken's public Ticker answer: `{"error": [], "result": {"XXBTZUSD": {"c": ["95000.10000",
 * "0.0012"], "a": [...], ...}}}`. The price is the last trade's, `c[0]`, decimal text in USD. A
 * non-empty `error` array (e.g. `["EQuery:Unknown asset pair"]`) fails the whole answer. The
 * ticker carries no time: the time the answer arrived counts.
 */
export function parseKrakenAnswer(body: string, fetchedAt: Date): SourceAnswer {
  const doc = readJson(body);
  if (!isObject(doc)) throw new SourceAnswerError('not an object');
  if (Array.isArray(doc.error) && doc.error.length) throw new SourceAnswerError(doc.error.map(String).join('; '));
  if (!isObject(doc.result)) throw new SourceAnswerError('no result object');
  const result = doc.result;
  const out: SourceAnswer = {};
  for (const [currency, pair] of Object.entries(KRAKEN_PAIRS) as Array<[Currency, { keys: readonly string[] }]>) {
    const key = pair.keys.find((k) => result[k] !== undefined);
    if (!key) continue;
    const ticker = result[key];
    const last = isObject(ticker) && Array.isArray(ticker.c) ? ticker.c[0] : undefined;
    out[currency] = quote(positivePrice(last), fetchedAt);
  }
  return out;
}
