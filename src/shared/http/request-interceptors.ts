import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { WritePositionInterceptor } from '../db/write-position.interceptor';
import { BodilessRouteInterceptor } from './bodiless-route.interceptor';
import { OtherModeHintInterceptor } from './other-mode-hint.interceptor';

/**
 * The service's interceptors for every route, as one: the bodiless-route check, the other-mode hint
 * on a 404 and the write position (with read replicas), in that order, each seeing what the one
 * before passes on, as when they were registered one by one. Nest wraps every interceptor of a route
 * in its own deferred observable and async scope on every request; chaining them here costs that
 * once, and each of them hands the request straight on where it has nothing to do.
 */
@Injectable()
export class RequestInterceptors implements NestInterceptor {
  private readonly chain: readonly NestInterceptor[];

  constructor(
    @Inject(BodilessRouteInterceptor) bodiless: BodilessRouteInterceptor,
    @Inject(OtherModeHintInterceptor) otherMode: OtherModeHintInterceptor,
    @Inject(WritePositionInterceptor) writePosition: WritePositionInterceptor,
  ) {
    this.chain = [bodiless, otherMode, writePosition];
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.from(0, context, next);
  }

  private from(i: number, context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (i === this.chain.length) return next.handle();
    return this.chain[i].intercept(context, { handle: () => this.from(i + 1, context, next) }) as Observable<unknown>;
  }
}
