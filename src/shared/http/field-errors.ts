import type { ValidationError } from 'class-validator';

/** The `validator` message of a body field the route does not define (at any depth: `items.0.pricee`). */
export const UNKNOWN_FIELD_MESSAGE = 'is not a known field';

/** The `validator` message of a field a route needs that the request left out. */
export const MISSING_FIELD_MESSAGE = 'is required';

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
    // A field left out fails its first check ("must be a string"); say what happened instead.
    if (messages.length && error.value === undefined) out[path] = MISSING_FIELD_MESSAGE;
    else if (messages.length) {
      const message = messages[0];
      // class-validator messages start with the property name; say the path instead.
      out[path] = message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message;
    }
    if (error.children?.length) Object.assign(out, fieldErrorsOf(error.children, path));
  }
  return out;
}
