import { krakenPath, parseKrakenAnswer } from '../domain/kraken-answer';
import type { SourceAnswer } from '../domain/source-answer';
import { getAnswer, LiveRateSource } from './http-answer';

/** Kraken's public Ticker (no key): the last trade of each USD pair. */
export class KrakenRateSource implements LiveRateSource {
  readonly name = 'kraken';
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date,
  ) {}

  fetch(): Promise<SourceAnswer> {
    return getAnswer(`${this.baseUrl}${krakenPath()}`, this.timeoutMs, parseKrakenAnswer, this.now);
  }
}
