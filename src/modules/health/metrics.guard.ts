import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../../shared/config/app-config';
import { UnauthorizedError } from '../../shared/errors/domain-error';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Who may read /metrics. With METRICS_TOKEN set: only a request with `Authorization: Bearer <token>`
 * (401 otherwise, in every mode). Without it: nobody in production (404, as if the route did not
 * exist, like /admin without ADMIN_API_TOKEN), anybody in development and test.
 */
@Injectable()
export class MetricsAccessGuard implements CanActivate {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.METRICS_TOKEN;
    if (!expected) {
      if (this.config.isProduction) throw new NotFoundException();
      return true;
    }
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    const given = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    if (given === undefined || !timingSafeEqual(digest(given), digest(expected))) {
      context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedError('Missing or wrong metrics token: send Authorization: Bearer <METRICS_TOKEN>', 'invalid_metrics_token');
    }
    return true;
  }
}
