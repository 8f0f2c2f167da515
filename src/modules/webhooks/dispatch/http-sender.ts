import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { endpointUrlProblem } from '../domain/endpoint-url';
import { RefusedAddressError } from './endpoint-resolver';

export interface SendOptions {
  timeoutMs: number;
  /** False: https only, and every address the host resolves to must be public (checked at connect time). */
  allowPrivate: boolean;
  /** With the guard on: the lookup that checks the addresses (EndpointResolver.guardedLookup). */
  lookup?: LookupFunction;
}

export interface SendResult {
  succeeded: boolean;
  status: number | null;
  /** The start of the response body (at most RESPONSE_BODY_LIMIT characters). */
  body: string | null;
  error: string | null;
  durationMs: number;
}

export const RESPONSE_BODY_LIMIT = 1024;

/**
 * POSTs one webhook body. Success is a 2xx answer within the timeout; redirects are not
 * followed. Never throws: every failure comes back as a result with a reason.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const problem = endpointUrlProblem(url, options.allowPrivate);
  if (problem) return Promise.resolve({ succeeded: false, status: null, body: null, error: `refused: URL ${problem}`, durationMs: 0 });
  // The guard checks addresses in its lookup: without one nothing is sent.
  if (!options.allowPrivate && !options.lookup) {
    return Promise.resolve({ succeeded: false, status: null, body: null, error: 'refused: no guarded lookup for the address check', durationMs: 0 });
  }

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        ...(options.allowPrivate ? {} : { lookup: options.lookup }),
      },
      (res: IncomingMessage) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < RESPONSE_BODY_LIMIT) text += chunk;
          if (text.length >= RESPONSE_BODY_LIMIT) {
            text = text.slice(0, RESPONSE_BODY_LIMIT);
            res.destroy();
            done();
          }
        });
        const done = () => {
          const status = res.statusCode ?? null;
          const ok = status !== null && status >= 200 && status < 300;
          // Kept as text in PostgreSQL, which stores no NUL character: one in the answer is replaced, so
          // recording the attempt (and with it the delivery's outcome) never fails on what a receiver sent.
          finish({ succeeded: ok, status, body: text.replaceAll('\u0000', '\uFFFD'), error: ok ? null : `endpoint answered HTTP ${status}` });
        };
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    const timer = setTimeout(() => {
      finish({ succeeded: false, status: null, body: null, error: `timed out after ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: Error & { code?: string }) => {
      const reason =
        error instanceof RefusedAddressError || error.message.includes('resolves to a private')
          ? `refused: ${error.message}`
          : `could not deliver: ${error.code ?? error.message}`;
      finish({ succeeded: false, status: null, body: null, error: reason });
    });
    req.end(body);
  });
}
