import { NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import { AppRequest, Envelope, EnvelopeReply, envOf } from './envelope';
import { createExpressServer } from './express-prototypes';

/**
 * The HTTP adapter that answers every successful handler result in the interface's envelope.
 *
 * Wrapping results here rather than in a global interceptor keeps the per-request path short: with
 * no interceptor on a route Nest calls the handler directly instead of through its observable
 * chain, and the envelope is serialized once and written with its headers in a single write.
 * Files (StreamableFile) and handlers that wrote their own response pass through untouched;
 * failures never get here (the exception filter writes their envelopes).
 */
export class EnvelopeExpressAdapter extends ExpressAdapter {
  /**
   * The HTTP(S) server, built with request and response classes that already carry Express's
   * prototypes (expressMessageClasses in express-prototypes.ts). Nest's closing options, which
   * this service does not use (its own drain stops it), keep Nest's own server.
   */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.return503OnClosing || options?.forceCloseConnections) return super.initHttpServer(options);
    this.httpServer = createExpressServer(this.getInstance<Express>(), options?.httpsOptions);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body instanceof StreamableFile || response.headersSent) return super.reply(response, body, statusCode);
    if (body instanceof EnvelopeReply && body.httpStatus !== undefined) response.statusCode = body.httpStatus;
    else if (statusCode !== undefined) response.statusCode = statusCode;
    const text = JSON.stringify(successEnvelope(response.req as AppRequest, response.statusCode, body));
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
    return undefined;
  }
}

/** The envelope of a successful result: `data` is the result (`{}` when none), `message` "Success" unless the handler chose one. */
export function successEnvelope(req: AppRequest, httpStatus: number, result: unknown): Envelope {
  const answer = result instanceof EnvelopeReply ? result : new EnvelopeReply(result ?? {}, 'Success');
  return {
    status: answer.statusOverride ?? httpStatus,
    data: answer.data,
    error: null,
    message: answer.message,
    env: envOf(req),
    log: { request_id: req.state.requestId },
    validator: null,
    support_id: null,
  };
}
