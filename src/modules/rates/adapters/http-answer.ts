import type { SourceAnswer } from '../domain/source-answer';
import { SourceAnswerError } from '../domain/source-answer';

/** Largest answer read from a source; a rates answer is a few tens of kilobytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One live price source: asks its API and answers per currency (domain/*-answer.ts parse the body). */
export interface LiveRateSource {
  /** How each stored rate names it: coinbase, kraken, coingecko, or the URL. */
  readonly name: string;
  fetch(): Promise<SourceAnswer>;
}

/**
 * GETs `url` within `timeoutMs` (connecting, waiting and reading the whole body) and hands the body
 * to `parse` with the time it arrived. An error status fails the answer, with the source's own error
 * text when `parse` can read one.
 */
export async function getAnswer(
  url: string,
  timeoutMs: number,
  parse: (body: string, fetchedAt: Date) => SourceAnswer,
  now: () => Date,
): Promise<SourceAnswer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' }, redirect: 'error' });
  const body = await readCapped(res);
  const fetchedAt = now();
  if (!res.ok) {
    let detail = '';
    try {
      parse(body, fetchedAt);
    } catch (e) {
      if (e instanceof SourceAnswerError) detail = `: ${e.message}`;
    }
    throw new SourceAnswerError(`HTTP ${res.status}${detail}`);
  }
  return parse(body, fetchedAt);
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw new SourceAnswerError(`answer larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A failure as one line for the log: the source's error, a timeout, or the connection's cause. */
export function failureText(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'timed out';
  if (err?.cause?.code) return `${err.message ?? 'failed'} (${err.cause.code})`;
  return err?.message ?? String(e);
}
