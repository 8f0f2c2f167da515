import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { DomainError } from '../errors/domain-error';
import { loggableText } from '../logging/secrets';
import { DescribedError, describeError } from './describe-error';
import { AppRequest, Envelope, envOf } from './envelope';

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
      url: loggableText(req.originalUrl),
    };
    if (described.status >= 500) {
      this.logger.error({
        ...logFields,
        err: exception instanceof Error ? safeError(exception) : exception,
      });
    } else {
      this.logger.log({ ...logFields, error: loggableText(described.error) });
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
      env: req.state ? envOf(req) : this.config.defaultEnv,
      log: { request_id: req.state?.requestId ?? supportId },
      validator: described.validator,
      support_id: supportId,
      code: described.code,
    };
    res.status(described.status).json(envelope);
  }

  private describe(exception: unknown, req: AppRequest): DescribedError {
    return describeError(exception, { method: req.method, path: req.path });
  }
}

/** An unexpected error as the log takes it: a secret-looking part of its message replaced (also where the stack repeats it). */
function safeError(error: Error): { message: string; stack?: string } {
  const message = loggableText(error.message);
  return { message, stack: error.stack?.replace(error.message, message) };
}
