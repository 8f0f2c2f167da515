import { ArgumentMetadata, Injectable, PipeTransform, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error';
import { fieldErrorsOf } from './field-errors';

export { fieldErrorsOf, MISSING_FIELD_MESSAGE, UNKNOWN_FIELD_MESSAGE } from './field-errors';

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
    // The value stays on the error only so a missing field can be told from a wrong one; it never reaches an answer.
    validationError: { target: false, value: true },
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
