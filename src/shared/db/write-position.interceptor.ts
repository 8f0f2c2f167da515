import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { catchError, concatMap, from, lastValueFrom, map, Observable, throwError } from 'rxjs';
import { scopeOf } from '../auth/request-context';
import type { AppRequest } from '../http/envelope';
import { ANY_CLIENT, replicaReadScope } from './read-replicas';
import { TransactionRunner } from './transaction-runner';

/** Methods that change nothing: their requests record no position. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const READ_ROUTE = 'replica-read-route';

/**
 * Marks a POST route that only reads (a list or figures asked with a JSON body) as a read: its reads
 * may go to a replica like a GET's, and it records no write position.
 */
export const ReadOnlyRoute = (): MethodDecorator => SetMetadata(READ_ROUTE, true);

/**
 * With read replicas: a keyed GET (or a route marked ReadOnlyRoute) runs with its caller's scope marked as one whose reads may go to a
 * replica (every other request, and background work, reads from the primary). Once a keyed request that may have written has been handled (answered or
 * failed), the primary's position is recorded for the caller's organization and mode before the
 * answer leaves (read-replicas.ts), so the caller's next read, on any instance, sees its write.
 * Without replicas it passes every request straight on.
 */
@Injectable()
export class WritePositionInterceptor implements NestInterceptor {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const replicas = this.tx.replicas;
    if (!replicas || context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AppRequest>();
    const caller = req.state?.caller;
    const reads = READS.has(req.method) || this.reflector.get<boolean>(READ_ROUTE, context.getHandler()) === true;
    if (reads) {
      // Reads of this request may go to a replica (TransactionRunner.readsFor): for the caller's scope
      // only; without a key (payer pages), for whoever reads, as of the primary's position now.
      const store = caller ? scopeOf(caller) : ANY_CLIENT;
      return from(replicaReadScope.run(store, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
    }
    if (!caller) return next.handle();
    const record = () => replicas.recordWrite(scopeOf(caller)).catch(() => undefined);
    return next.handle().pipe(
      concatMap((value: unknown) => from(record()).pipe(map(() => value))),
      catchError((error: unknown) => from(record()).pipe(concatMap(() => throwError(() => error)))),
    );
  }
}
