import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error';

/** Flattens class-validator output into the envelope's `validator` map keyed by field path (items.0.price). */
export function fieldErrorsOf(errors: ValidationError[], parent = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length) {
      const message = messages[0];
      // class-validator messages start with the property name; say the path instead.
      out[path] = message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message;
    }
    if (error.children?.length) Object.assign(out, fieldErrorsOf(error.children, path));
  }
  return out;
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationFailedError(fieldErrorsOf(errors)),
  });
}
