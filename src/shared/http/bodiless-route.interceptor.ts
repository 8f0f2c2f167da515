import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from '../errors/domain-error';
import type { AppRequest } from './envelope';
import { READS_BODY } from './object-body';
import { UNKNOWN_FIELD_MESSAGE } from './validation';

/** Whether a route handler takes the body: a `@Body()` or an `@ObjectBody()` parameter (Nest keeps both on the controller class). */
export function routeReadsBody(controller: object, handler: { name: string }): boolean {
  if (Reflect.getMetadata(READS_BODY, controller, handler.name) === true) return true;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, unknown>;
  return Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
}

/**
 * A route that takes no body (`POST /events/{id}`, the DELETEs) refuses a JSON body with fields, naming
 * each as the validation pipe names an unknown field; `{}`, `[]` and no body at all pass. Routes with a
 * body are left to the pipe. Whether a route reads its body is looked up once per handler.
 */
@Injectable()
export class BodilessRouteInterceptor implements NestInterceptor {
  private readonly readsBody = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const handler = context.getHandler();
    let reads = this.readsBody.get(handler);
    if (reads === undefined) {
      reads = routeReadsBody(context.getClass(), handler);
      this.readsBody.set(handler, reads);
    }
    if (reads) return next.handle();
    const body = context.switchToHttp().getRequest<AppRequest>().body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return next.handle();
    const fields = Object.keys(body);
    if (fields.length === 0) return next.handle();
    throw new ValidationFailedError(Object.fromEntries(fields.map((field) => [field, UNKNOWN_FIELD_MESSAGE])));
  }
}
