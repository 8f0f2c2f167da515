import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppRequest } from '../http/envelope';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** One JSON line per request, carrying the request id. */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  private readonly handler: ReturnType<typeof pinoHttp>;

  constructor(@Inject(ROOT_LOGGER) logger: Logger) {
    this.handler = pinoHttp({
      logger,
      genReqId: (req) => (req as AppRequest).state?.requestId ?? 'unknown',
      customLogLevel: (_req, res, err) => (err || (res as { statusCode: number }).statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    });
  }

  use(req: AppRequest, res: Response, next: NextFunction): void {
    this.handler(req, res, next);
  }
}
