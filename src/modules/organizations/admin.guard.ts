import { CanActivate, Inject, Injectable, ExecutionContext, NotFoundException } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Response } from 'express';
import { AppConfig } from '../../shared/config/app-config';
import { RateLimitedError, UnauthorizedError } from '../../shared/errors/domain-error';
import type { AppRequest } from '../../shared/http/envelope';
import { JsonBodyReader } from '../../shared/http/middleware';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';

const digest = (v: string) => createHash('sha256').update(v).digest();

/**
 * The operator API exists only when ADMIN_API_TOKEN is set (otherwise its routes answer 404 like
 * any unknown path) and is called with the token in X-Admin-Token. An address that sent
 * ADMIN_AUTH_FAILURES wrong tokens within a minute gets 429 (every request, the right token
 * included) until that minute ends; other addresses are not affected. The body is read only after the
 * token passed.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(JsonBodyReader) private readonly body: JsonBodyReader,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const expected = this.config.ADMIN_API_TOKEN;
    if (!expected) throw new NotFoundException();
    const req = context.switchToHttp().getRequest<AppRequest>();
    // The same client address as every other budget (an IPv6 client counts by its /64).
    const client = clientBucket(req.ip);
    const given = req.headers['x-admin-token'];
    const right = typeof given === 'string' && timingSafeEqual(digest(given), digest(expected));
    // A wrong token counts against the address's budget, past which every request is 429 (the right token
    // too); the right one is never counted, so an operator's requests at once are not refused. The answer
    // tells a guess apart only within the budget: a right token whose address has spent it is 429 as well.
    // A request without the header guesses nothing and is not counted.
    const attempts = typeof given === 'string' && !right ? await this.limiter.recordAdminFailure(client) : await this.limiter.adminAttemptsAllowed(client);
    if (!attempts.allowed) throw new RateLimitedError(attempts.resetSeconds);
    if (!right) throw new UnauthorizedError('Missing or wrong X-Admin-Token', 'invalid_admin_token');
    // The body only now, for the operator (the API key guard leaves it to this guard: PublicOperator).
    await this.body.read(req, context.switchToHttp().getResponse<Response>(), this.config.BODY_LIMIT_BYTES);
    return true;
  }
}
