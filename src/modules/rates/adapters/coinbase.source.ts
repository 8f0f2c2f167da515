import { COINBASE_PATH, parseCoinbaseAnswer } from '../domain/coinbase-answer';
import type { SourceAnswer } from '../domain/source-answer';
import { getAnswer, LiveRateSource } from './http-answer';

/** Coinbase's public exchange rates (no key): every currency against one US dollar. */
export class CoinbaseRateSource implements LiveRateSource {
  readonly name = 'coinbase';
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date,
  ) {}

  fetch(): Promise<SourceAnswer> {
    return getAnswer(`${this.baseUrl}${COINBASE_PATH}`, this.timeoutMs, parseCoinbaseAnswer, this.now);
  }
}
