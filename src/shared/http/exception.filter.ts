import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { DomainError, RateLimitedError, STATUS_BY_KIND } from '../errors/domain-error';
import { AppRequest, Envelope, envOf } from './envelope';

const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300',
]);

function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; driverError?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code && DB_UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.driverError && isDatabaseUnavailable(e.driverError)) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Connection is not established/.test(message);
}

const HTTP_CODES: Record<number, string> = {
  400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'route_not_found', 405: 'method_not_allowed',
  406: 'not_acceptable', 408: 'request_timeout', 409: 'conflict', 413: 'payload_too_large',
  415: 'unsupported_media_type', 422: 'unprocessable_entity', 429: 'rate_limited',
};

interface Described {
  status: number;
  code: string;
  error: string;
  validator: Record<string, string> | null;
}

/** The one place where failures become error envelopes (all eight interface fields, plus `code`). */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<AppRequest>();
    const res = ctx.getResponse<Response>();
    const supportId = randomUUID();
    const described = this.describe(exception, req);

    const logFields = {
      support_id: supportId,
      request_id: req.state?.requestId,
      status: described.status,
      code: described.code,
      method: req.method,
      url: req.originalUrl,
    };
    if (described.status >= 500) {
      this.logger.error({ ...logFields, err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception });
    } else {
      this.logger.log({ ...logFields, error: described.error });
    }

    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof RateLimitedError) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    const envelope: Envelope<Record<string, never>> = {
      status: described.status,
      data: {},
      error: described.error,
      message: null,
      env: req.state ? envOf(req) : this.config.defaultEnv,
      log: { request_id: req.state?.requestId ?? supportId },
      validator: described.validator,
      support_id: supportId,
      code: described.code,
    };
    res.status(described.status).json(envelope);
  }

  private describe(exception: unknown, req: AppRequest): Described {
    if (exception instanceof DomainError) {
      return { status: STATUS_BY_KIND[exception.kind], code: exception.code, error: exception.message, validator: exception.fields };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return { status, code: 'route_not_found', error: `No route for ${req.method} ${req.path}`, validator: null };
      }
      const body = exception.getResponse() as { message?: unknown } | string;
      const text = typeof body === 'string' ? body : Array.isArray(body.message) ? body.message.join('; ') : String(body.message ?? exception.message);
      return { status, code: HTTP_CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request'), error: status >= 500 ? 'Internal server error' : text, validator: null };
    }
    if (isDatabaseUnavailable(exception)) {
      return { status: 503, code: 'service_unavailable', error: 'The database is unreachable; retry shortly', validator: null };
    }
    return { status: 500, code: 'internal_error', error: 'Internal server error', validator: null };
  }
}
