import { coingeckoPath, parseCoingeckoAnswer } from '../domain/coingecko-answer';
import type { SourceAnswer } from '../domain/source-answer';
import { getAnswer, LiveRateSource } from './http-answer';

/** CoinGecko's public simple price (no key): each coin's USD price and when it was last updated. */
export class CoingeckoRateSource implements LiveRateSource {
  readonly name = 'coingecko';
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date,
  ) {}

  fetch(): Promise<SourceAnswer> {
    return getAnswer(`${this.baseUrl}${coingeckoPath()}`, this.timeoutMs, parseCoingeckoAnswer, this.now);
  }
}
