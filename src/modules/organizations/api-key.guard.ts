import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import { AUTH_POLICY, AuthPolicy } from '../../shared/auth/auth.decorators';
import { AppConfig } from '../../shared/config/app-config';
import { ForbiddenError, UnauthorizedError } from '../../shared/errors/domain-error';
import type { AppRequest } from '../../shared/http/envelope';
import { keyFromAuthorization, modeOfKey } from './domain/api-key';
import { ResolveApiKeyQuery } from './queries/resolve-api-key/resolve-api-key.query';

/**
 * Resolves the organization and mode of every request from its API key (bare or `Bearer`).
 * 401: missing, malformed, unknown or revoked key. 403: a read-only key on a write, a live key
 * on a test-only call. Payer-facing routes also accept no key at all (decisions §3).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [context.getHandler(), context.getClass()]) ?? {};
    if (policy.public) return true;
    const req = context.switchToHttp().getRequest<AppRequest>();
    const key = keyFromAuthorization(req.headers.authorization);

    if (!key) {
      if (policy.payer && this.config.PUBLIC_PAYER_ACCESS) {
        req.state.caller = null;
        return true;
      }
      throw new UnauthorizedError('Missing API key: send it in the Authorization header', 'missing_api_key');
    }
    if (!modeOfKey(key)) throw new UnauthorizedError('Malformed API key: keys look like sk_test_... or sk_live_...', 'malformed_api_key');
    const caller = await this.queries.execute(new ResolveApiKeyQuery(key));
    if (!caller) throw new UnauthorizedError('Invalid API key: unknown or revoked');
    req.state.caller = caller;

    if (policy.write && caller.readOnly) throw new ForbiddenError('This API key is read-only', 'read_only_key');
    if (policy.testOnly && caller.mode !== 'test') throw new ForbiddenError('Only test-mode keys may call this endpoint', 'live_mode_forbidden');
    return true;
  }
}
