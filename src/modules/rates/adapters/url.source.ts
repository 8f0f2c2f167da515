import type { SourceAnswer } from '../domain/source-answer';
import { parseUrlSourceAnswer } from '../domain/url-source-answer';
import { getAnswer, LiveRateSource } from './http-answer';

/** A deployment's own feed: a URL answering in the shape `rates:import` takes. */
export class UrlRateSource implements LiveRateSource {
  constructor(
    readonly name: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date,
  ) {}

  fetch(): Promise<SourceAnswer> {
    return getAnswer(this.name, this.timeoutMs, parseUrlSourceAnswer, this.now);
  }
}
