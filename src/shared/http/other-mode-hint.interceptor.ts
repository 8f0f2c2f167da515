import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { scopeOf, type Mode } from '../auth/request-context';
import { DomainError } from '../errors/domain-error';
import { OtherModeIds } from '../ids/other-mode-ids';
import type { AppRequest } from './envelope';

/** The same 404 (kind and code), its text naming the mode the id lives in. */
export class NotFoundInThisModeError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code: string;
  constructor(plain: DomainError, found: Mode, keyMode: Mode) {
    super(`${plain.message}: it exists in ${found} mode; this key is a ${keyMode} key.`);
    this.code = plain.code;
  }
}

/**
 * A 404 for an id in the path, asked with a key, is looked into once more: when the id belongs to
 * the caller's organization in the other mode, the answer says so (decisions §1, as Stripe does).
 * Nothing is asked on a request that succeeds or fails otherwise; another organization's id, an
 * unknown id and a request without a key keep the plain 404. A failed look leaves the plain 404.
 */
@Injectable()
export class OtherModeHintInterceptor implements NestInterceptor {
  private readonly logger = new Logger('OtherModeHint');

  constructor(@Inject(OtherModeIds) private readonly ids: OtherModeIds) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AppRequest>();
    // Without an id in the path there is nothing to look for (hinted): no error handler on the way.
    if (!pathIdsOf(req).length) return next.handle();
    return next.handle().pipe(catchError((error: unknown) => from(this.hinted(error, req)).pipe(mergeMap((out) => throwError(() => out)))));
  }

  private async hinted(error: unknown, req: AppRequest): Promise<unknown> {
    if (!(error instanceof DomainError) || error.kind !== 'not_found' || !this.ids.explains(error.code)) return error;
    const caller = req.state?.caller;
    if (!caller) return error;
    const pathIds = pathIdsOf(req);
    if (!pathIds.length) return error;
    try {
      const other = await this.ids.otherModeOf(error.code, scopeOf(caller), pathIds);
      return other ? new NotFoundInThisModeError(error, other, caller.mode) : error;
    } catch (e) {
      this.logger.warn({ code: error.code, err: (e as Error).message }, 'could not look for the id in the other mode');
      return error;
    }
  }
}

/** The ids in the request's path (its route parameters). */
function pathIdsOf(req: AppRequest): string[] {
  return Object.values((req.params ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
}
