import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { DomainError } from '../errors/domain-error';
import { loggableText } from '../logging/secrets';
import { describeError } from './describe-error';
import { AppRequest, Envelope, envOf } from './envelope';

/** The one place where failures become error envelopes (all eight interface fields, plus `code`). */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    answerError(exception, ctx.getRequest<AppRequest>(), ctx.getResponse<Response>(), this.config.defaultEnv, this.logger);
  }
}

/**
 * Writes a failure's error envelope (and logs it: 5xx as errors, the rest as information). The exception
 * filter's, and the answer of what refuses a request before Nest routes it (the docs over plain HTTP).
 */
export function answerError(exception: unknown, req: AppRequest, res: Response, defaultEnv: 'development' | 'production', logger: Logger): void {
  const supportId = randomUUID();
  const described = describeError(exception, { method: req.method, path: req.path });

  const logFields = {
    support_id: supportId,
    request_id: req.state?.requestId,
    status: described.status,
    code: described.code,
    method: req.method,
    url: loggableText(req.originalUrl),
  };
  if (described.status >= 500) {
    logger.error({
      ...logFields,
      err: exception instanceof Error ? safeError(exception) : exception,
    });
  } else {
    logger.log({ ...logFields, error: loggableText(described.error) });
  }

  if (res.headersSent) {
    res.end();
    return;
  }
  if (exception instanceof DomainError && exception.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(Math.max(0, Math.ceil(exception.retryAfterSeconds))));
  }
  const envelope: Envelope<Record<string, never>> = {
    status: described.status,
    data: {},
    error: described.error,
    message: null,
    env: req.state ? envOf(req) : defaultEnv,
    log: { request_id: req.state?.requestId ?? supportId },
    validator: described.validator,
    support_id: supportId,
    code: described.code,
  };
  res.status(described.status).json(envelope);
}

/** An unexpected error as the log takes it: a secret-looking part of its message replaced (also where the stack repeats it). */
function safeError(error: Error): { message: string; stack?: string } {
  const message = loggableText(error.message);
  return { message, stack: error.stack?.replace(error.message, message) };
}
