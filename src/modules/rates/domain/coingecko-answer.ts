import type { Currency } from '../../../shared/money/currency';
import { isObject, JsonNumber, notAfter, positivePrice, quote, readJson, SourceAnswer, SourceAnswerError, textOf } from './source-answer';

/** CoinGecko's coin ids for our crypto currencies (CoinGecko prices coins, not fiat currencies). */
export const COINGECKO_IDS: Partial<Record<Currency, string>> = {
  BITCOIN: 'bitcoin',
  ETHEREUM: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  USDC_NATIVE: 'usd-coin',
  SOLANA: 'solana',
  BINANCE_COIN: 'binancecoin',
  RIPPLE: 'ripple',
  POLYGON: 'polygon-ecosystem-token',
  TRON: 'tron',
  LITECOIN: 'litecoin',
  BITCOIN_CASH: 'bitcoin-cash',
  DOGECOIN: 'dogecoin',
};

/** The request: the USD price of every coin above, with the time CoinGecko last updated each. */
export function coingeckoPath(): string {
  const ids = [...new Set(Object.values(COINGECKO_IDS))];
  return `/api/v3/simple/price?ids=${ids.join(',')}&vs_currencies=usd&include_last_updated_at=true`;
}

/**
 * Reads CoinGecko's simple price answer: `{"bitcoin": {"usd": 95000.12, "last_updated_at":
 * 1764230400}, ...}`. Prices are JSON numbers; they are read from their text, never through a
 * float. `last_updated_at` (Unix seconds) is when the price was taken (never later than the answer
 * arrived; the arrival time when it is missing). An error answer is
 * `{"status": {"error_code": 429, "error_message": ...}}` or `{"error": ...}`.
 */
export function parseCoingeckoAnswer(body: string, fetchedAt: Date): SourceAnswer {
  const doc = readJson(body);
  if (!isObject(doc)) throw new SourceAnswerError('not an object');
  if (isObject(doc.status) && doc.status.error_code !== undefined) {
    throw new SourceAnswerError(`error ${textOf(doc.status.error_code)}: ${textOf(doc.status.error_message)}`.trim());
  }
  if (doc.error !== undefined) throw new SourceAnswerError(`error: ${textOf(doc.error)}`);
  const out: SourceAnswer = {};
  for (const [currency, id] of Object.entries(COINGECKO_IDS) as Array<[Currency, string]>) {
    const coin = doc[id];
    if (!isObject(coin) || coin.usd === undefined) continue;
    const updated = coin.last_updated_at;
    let takenAt = fetchedAt;
    if (updated !== undefined && updated !== null) {
      const seconds = updated instanceof JsonNumber && /^\d{1,12}$/.test(updated.text) ? Number(updated.text) : null;
      if (seconds === null) {
        out[currency] = { problem: 'last_updated_at is not a time' };
        continue;
      }
      takenAt = notAfter(new Date(seconds * 1000), fetchedAt);
    }
    out[currency] = quote(positivePrice(coin.usd), takenAt);
  }
  return out;
}
