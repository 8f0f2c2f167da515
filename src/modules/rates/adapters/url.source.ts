import type { SourceAnswer } from '../domain/source-answer';
import { parseUrlSourceAnswer } from '../domain/url-source-answer';
import { getAnswer, LiveRateSource } from './http-answer';

/** A deployment's own feed: a URL answering in the shape `rates:import` takes. */
export class UrlRateSource implements LiveRateSource {
  constructor(
    /** As logs, metrics and stored rates name it (feedName: without the URL's credentials). */
    readonly name: string,
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date,
  ) {}

  fetch(): Promise<SourceAnswer> {
    return getAnswer(this.url, this.timeoutMs, parseUrlSourceAnswer, this.now);
  }
}
