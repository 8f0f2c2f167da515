import { createParamDecorator, ExecutionContext, ValidationPipe } from '@nestjs/common';
import { BadRequestError } from '../errors/domain-error';
import type { AppRequest } from './envelope';
import { validationOptions } from './validation';

/**
 * The JSON body of a call whose interface allows "an empty array or an object": a top-level `[]`
 * reads as `{}`; any other array is a 400. Pair it with `objectBodyPipe` (custom parameter
 * decorators are not seen by the global pipe): `@ObjectBody(objectBodyPipe) body: SomeDto`.
 */
const notAnObject = () =>
  new BadRequestError('The body must be a JSON object (or an empty array)', 'validation_failed', { body: 'must be a JSON object or an empty array' });

/** Method metadata: the route reads its body through ObjectBody (see BodilessRouteInterceptor). */
export const READS_BODY = 'http:reads-body';

const marksBodyRead: ParameterDecorator = (target, key) => Reflect.defineMetadata(READS_BODY, true, target.constructor, key as string);

export const ObjectBody = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): unknown => {
    const body = ctx.switchToHttp().getRequest<AppRequest>().body as unknown;
    if (Array.isArray(body)) {
      if (body.length === 0) return {};
      throw notAnObject();
    }
    if (body === null || body === undefined) return {};
    if (typeof body !== 'object') throw notAnObject();
    return body;
  },
  [marksBodyRead],
);

/** The global settings of a body (unknown fields refused), applied to an ObjectBody parameter. */
export const objectBodyPipe = new ValidationPipe({ ...validationOptions(true), validateCustomDecorators: true });
