import { lookup as dnsLookup, LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from '../domain/address-guard';
import { endpointUrlProblem } from '../domain/endpoint-url';

export interface SendOptions {
  timeoutMs: number;
  /** False: https only, and every address the host resolves to must be public (checked at connect time). */
  allowPrivate: boolean;
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

class RefusedAddressError extends Error {}

/**
 * A name lookup that refuses private answers. The connection then goes to the address checked
 * here, so a host cannot pass a check and then resolve elsewhere for the request.
 */
const guardedLookup = ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (...args: unknown[]) => void) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      return callback(new RefusedAddressError(`${hostname} resolves to a private, loopback or link-local address (${refused?.address ?? 'none'})`));
    }
    if ((options as LookupAllOptions).all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}) as unknown as LookupFunction;

/**
 * POSTs one webhook body. Success is a 2xx answer within the timeout; redirects are not
 * followed. Never throws: every failure comes back as a result with a reason.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const problem = endpointUrlProblem(url, options.allowPrivate);
  if (problem) return Promise.resolve({ succeeded: false, status: null, body: null, error: `refused: URL ${problem}`, durationMs: 0 });

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
        ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
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
