import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error';

/** The `validator` message of a body field the route does not define (at any depth: `items.0.pricee`). */
export const UNKNOWN_FIELD_MESSAGE = 'is not a known field';

/** class-validator's constraint name for a property no decorator declares (`forbidNonWhitelisted`). */
const WHITELIST_CONSTRAINT = 'whitelistValidation';

/** Flattens class-validator output into the envelope's `validator` map keyed by field path (items.0.price). */
export function fieldErrorsOf(errors: ValidationError[], parent = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    if (constraints[WHITELIST_CONSTRAINT]) {
      out[path] = UNKNOWN_FIELD_MESSAGE;
      continue;
    }
    const messages = Object.values(constraints);
    if (messages.length) {
      const message = messages[0];
      // class-validator messages start with the property name; say the path instead.
      out[path] = message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message;
    }
    if (error.children?.length) Object.assign(out, fieldErrorsOf(error.children, path));
  }
  return out;
}

/**
 * The settings of every validated request part. A body (`refuseUnknown`) refuses the fields its DTO
 * does not declare, at every depth its DTO validates (nested DTOs through @ValidateNested), in the same
 * walk as the other checks; an object the DTO takes as a whole (metadata) is not walked, so it stays
 * open. Query strings keep dropping the parameters a route does not read.
 */
export function validationOptions(refuseUnknown: boolean): ValidationPipeOptions {
  return {
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: refuseUnknown,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(fieldErrorsOf(errors)),
  };
}

/** The global pipe: bodies refuse unknown fields, query DTOs drop them. */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  private readonly body = new ValidationPipe(validationOptions(true));
  private readonly other = new ValidationPipe(validationOptions(false));

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return (metadata.type === 'body' ? this.body : this.other).transform(value, metadata);
  }
}

export function createValidationPipe(): PipeTransform {
  return new RequestValidationPipe();
}
