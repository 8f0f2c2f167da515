import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { AppRequest } from '../http/envelope';
import type { CallerContext } from './request-context';

export const AUTH_POLICY = 'auth:policy';

export interface AuthPolicy {
  /** No key at all (health, docs, metrics). */
  public?: boolean;
  /** The call changes data: read-only keys get 403. */
  write?: boolean;
  /** Payer-facing call (decisions §3): without a key the id is the capability. */
  payer?: boolean;
  /**
   * On a write that payers may also make: the body fields a payer may send. A read-only key has at
   * least a payer's rights, so it may make this write when its body holds only these fields.
   */
  payerFields?: readonly string[];
  /** Only test-mode keys may call it (test helpers); live keys get 403. */
  testOnly?: boolean;
  /** A public route that also takes HTML form posts (application/x-www-form-urlencoded): the console's pages. */
  forms?: boolean;
  /**
   * A public route for payers without a key (a refund claim's token is its capability): drawn from the
   * anonymous budget and read with the payer body cap, both before the handler (and the budget before the body).
   */
  payerBudget?: boolean;
  /**
   * A public route of the operator's, whose X-Admin-Token is checked by its own guard before anything else:
   * that guard reads the body, so neither an unset token nor a wrong one costs a body read.
   */
  operator?: boolean;
}

/** Declares how a route authenticates. Every route of the API carries one. */
export function Authenticated(policy: Omit<AuthPolicy, 'public'> = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(AUTH_POLICY, policy), ApiSecurity('api_key'), ...(policy.payer ? [ApiSecurity({})] : []));
}

/**
 * Marks a public route's operation in the OpenAPI document. Nest drops an empty `security` list, so the
 * route names this placeholder scheme and `buildOpenApi` turns it into `security: []` (no key needed).
 */
export const PUBLIC_SECURITY_MARKER = 'public-route';

export function Public(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(AUTH_POLICY, { public: true } satisfies AuthPolicy), ApiSecurity(PUBLIC_SECURITY_MARKER));
}

/** The operator API's routes: no API key; the controller's guard checks X-Admin-Token, then reads the body (AuthPolicy.operator). */
export function PublicOperator(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(AUTH_POLICY, { public: true, operator: true } satisfies AuthPolicy), ApiSecurity(PUBLIC_SECURITY_MARKER));
}

/** A public JSON route of the payer's (no key; the anonymous budget and the payer body cap, as payer calls without a key). */
export function PublicPayer(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(AUTH_POLICY, { public: true, payerBudget: true } satisfies AuthPolicy), ApiSecurity(PUBLIC_SECURITY_MARKER));
}

/**
 * A public route of a server-rendered page that takes HTML form posts as well as JSON (the management
 * console, which authenticates its members by session cookie itself).
 */
export function PublicForm(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(AUTH_POLICY, { public: true, forms: true } satisfies AuthPolicy), ApiSecurity(PUBLIC_SECURITY_MARKER));
}

/** The caller resolved from the API key, or null on a payer-facing call without a key. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): CallerContext | null => {
  return ctx.switchToHttp().getRequest<AppRequest>().state.caller ?? null;
});

/** Like Caller, for routes that always require a key: never null. */
export const RequiredCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): CallerContext => {
  const caller = ctx.switchToHttp().getRequest<AppRequest>().state.caller;
  if (!caller) throw new Error('RequiredCaller used on a route that does not require a key');
  return caller;
});
