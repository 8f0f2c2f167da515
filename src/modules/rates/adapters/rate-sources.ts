import type { RateSourceSetting } from '../rates.config';
import { CoinbaseRateSource } from './coinbase.source';
import { CoingeckoRateSource } from './coingecko.source';
import type { LiveRateSource } from './http-answer';
import { KrakenRateSource } from './kraken.source';
import { UrlRateSource } from './url.source';

/** The one place each configured source gets its adapter. */
export function rateSourceFor(setting: RateSourceSetting, timeoutMs: number, now: () => Date): LiveRateSource {
  switch (setting.kind) {
    case 'coinbase':
      return new CoinbaseRateSource(setting.baseUrl, timeoutMs, now);
    case 'kraken':
      return new KrakenRateSource(setting.baseUrl, timeoutMs, now);
    case 'coingecko':
      return new CoingeckoRateSource(setting.baseUrl, timeoutMs, now);
    case 'url':
      return new UrlRateSource(setting.name, setting.url, timeoutMs, now);
  }
}
