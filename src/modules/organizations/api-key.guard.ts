import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { AUTH_POLICY, AuthPolicy } from '../../shared/auth/auth.decorators';
import { AppConfig } from '../../shared/config/app-config';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../../shared/errors/domain-error';
import type { AppRequest } from '../../shared/http/envelope';
import { routeReadsBody } from '../../shared/http/bodiless-route.interceptor';
import { JsonBodyReader } from '../../shared/http/middleware';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { LimitDecision, RateLimiter } from '../../shared/rate-limit/rate-limiter';
import { keyFromAuthorization, modeOfKey } from './domain/api-key';
import { ResolveApiKeyQuery } from './queries/resolve-api-key/resolve-api-key.query';

/**
 * Resolves the organization and mode of every request from its API key (bare or `Bearer`), draws
 * the request from the key's budget (or the client address's, without a key), and only then reads
 * the JSON body: a request that is refused here (and an unknown route, which never gets here) costs
 * no body parsing.
 * 401: missing, malformed, unknown or revoked key. 403: a read-only key on a write, a live key
 * on a test-only call. 429: over budget (the key's, or its organization's in that mode, which all
 * its keys of the mode share), or an unknown key from an address that sent too many.
 * Payer-facing routes also accept no key at all (decisions §3), with a small body cap; so do the public
 * payer routes (refund claims), which never take a key.
 *
 * Failed authentications are counted per client address (IPv6 per /64) and lock that address's
 * unknown keys out for a minute; a valid key is always judged on its own budget, so bad keys sent
 * from (or claiming) an address never block a merchant who shares it.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly takesBody = new WeakMap<object, boolean>();

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(JsonBodyReader) private readonly body: JsonBodyReader,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [context.getHandler(), context.getClass()]) ?? {};
    const req = context.switchToHttp().getRequest<AppRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const client = clientBucket(req.ip);
    const limits = this.limiter.enabled;
    if (policy.public) {
      if (policy.payerBudget) {
        if (limits) this.enforce(res, await this.limiter.forAnonymous(client));
        await this.body.read(req, res, this.payerBodyLimit());
        return true;
      }
      if (policy.operator) return true; // its own guard checks the operator's token first, then reads the body
      // A keyless route that takes no body (a page, a file, health) reads at most the payer cap: a body there
      // is refused anyway, and a keyless caller is not charged before it.
      const limit = policy.forms === true || this.readsBody(context) ? this.config.BODY_LIMIT_BYTES : this.payerBodyLimit();
      await this.body.read(req, res, limit, policy.forms === true);
      return true;
    }
    const key = keyFromAuthorization(req.headers.authorization);

    if (!key) {
      if (policy.payer && this.config.PUBLIC_PAYER_ACCESS) {
        if (limits) this.enforce(res, await this.limiter.forAnonymous(client));
        req.state.caller = null;
        await this.body.read(req, res, this.payerBodyLimit());
        return true;
      }
      throw new UnauthorizedError('Missing API key: send it in the Authorization header', 'missing_api_key');
    }
    const caller = modeOfKey(key) ? await this.queries.execute(new ResolveApiKeyQuery(key)) : null;
    if (!caller) {
      if (limits) {
        const failures = await this.limiter.recordAuthFailure(client);
        if (!failures.allowed) throw new RateLimitedError(failures.resetSeconds);
      }
      if (!modeOfKey(key)) throw new UnauthorizedError('Malformed API key: keys look like sk_test_... or sk_live_...', 'malformed_api_key');
      throw new UnauthorizedError('Invalid API key: unknown or revoked');
    }
    req.state.caller = caller;
    if (limits) {
      // The key's budget, and its organization's in this mode, which all its keys of the mode share.
      const { key, organization } = await this.limiter.forKeyOfOrganization(caller.keyId, caller.organizationId, caller.mode);
      this.enforce(res, key.allowed && !organization.allowed ? organization : key);
    }

    if (policy.write && caller.readOnly && !(policy.payer && policy.payerFields)) throw new ForbiddenError('This API key is read-only', 'read_only_key');
    if (policy.testOnly && caller.mode !== 'test') throw new ForbiddenError('Only test-mode keys may call this endpoint', 'live_mode_forbidden');
    await this.body.read(req, res, this.config.BODY_LIMIT_BYTES);
    if (policy.write && caller.readOnly && !onlyPayerFields(req.body, policy.payerFields ?? [])) {
      throw new ForbiddenError(`This API key is read-only: it may change only what a payer may (${(policy.payerFields ?? []).join(', ')})`, 'read_only_key');
    }
    return true;
  }

  /** Whether the route's handler takes a body (looked up once per handler). */
  private readsBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let reads = this.takesBody.get(handler);
    if (reads === undefined) {
      reads = routeReadsBody(context.getClass(), handler);
      this.takesBody.set(handler, reads);
    }
    return reads;
  }

  private payerBodyLimit(): number {
    return Math.min(this.config.PAYER_BODY_LIMIT_BYTES, this.config.BODY_LIMIT_BYTES);
  }

  /** IETF RateLimit headers on every limited response; 429 with Retry-After when over. */
  private enforce(res: Response, decision: LimitDecision): void {
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) throw new RateLimitedError(decision.resetSeconds);
  }
}

/** Whether a write's body holds nothing but fields a payer may send (a non-object body is left to validation). */
function onlyPayerFields(body: unknown, fields: readonly string[]): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return true;
  return Object.keys(body).every((k) => fields.includes(k));
}
