import { safeFieldErrors } from '../logging/secrets';

/**
 * Every failure a client can cause is a DomainError. The one exception filter maps `kind` to an
 * HTTP status and writes the error envelope; code stays stable for machines, message is for people.
 */
export type ErrorKind =
  'validation' | 'invalid_state' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'payload_too_large' | 'rate_limited' | 'unavailable';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 400,
  invalid_state: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

export type FieldErrors = Record<string, string>;

export abstract class DomainError extends Error {
  abstract readonly code: string;
  abstract readonly kind: ErrorKind;
  /** Field path -> message, rendered as the envelope's `validator`. */
  readonly fields: FieldErrors | null;
  /** When the client may usefully try again (seconds), sent as the Retry-After header; unset: no header. */
  readonly retryAfterSeconds?: number;

  /** A field path that looks like a secret (a key sent as a field name) is named `<redacted field>`: answers and logs never repeat it. */
  constructor(message: string, fields?: FieldErrors | null) {
    super(message);
    this.name = new.target.name;
    this.fields = fields ? safeFieldErrors(fields) : null;
  }
}

export class ValidationFailedError extends DomainError {
  readonly code: string;
  readonly kind = 'validation' as const;
  constructor(fields: FieldErrors, message?: string, code = 'validation_failed') {
    const safe = safeFieldErrors(fields);
    super(
      message ??
        `Invalid request: ${Object.entries(safe)
          .map(([k, v]) => `${k} ${v}`)
          .join('; ')}`,
      safe,
    );
    this.code = code;
  }
}

/** A request the service cannot act on as a whole (unreadable body, plain HTTP in production). */
export class BadRequestError extends DomainError {
  readonly kind = 'validation' as const;
  constructor(
    message: string,
    readonly code = 'bad_request',
    fields: FieldErrors | null = null,
  ) {
    super(message, fields);
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  readonly code: string;
  constructor(what: string, code?: string) {
    super(`${what[0].toUpperCase()}${what.slice(1)} not found`);
    this.code = code ?? `${what.replace(/\s+/g, '_').toLowerCase()}_not_found`;
  }
}

export class InvalidStateTransitionError extends DomainError {
  readonly code = 'invalid_state_transition';
  readonly kind = 'invalid_state' as const;
  constructor(what: string, from: string, to: string, allowed: readonly string[], field = 'status') {
    const allowedText = allowed.length ? allowed.join(', ') : 'none (the state is final)';
    super(`Cannot move ${what} from ${from} to ${to}`, { [field]: `cannot move from ${from} to ${to}; allowed: ${allowedText}` });
  }
}

export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized' as const;
  constructor(
    message: string,
    readonly code = 'invalid_api_key',
  ) {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden' as const;
  constructor(
    message: string,
    readonly code = 'forbidden',
  ) {
    super(message);
  }
}

export class ConflictError extends DomainError {
  readonly kind = 'conflict' as const;
  constructor(
    message: string,
    readonly code = 'conflict',
  ) {
    super(message);
  }
}

export class ServiceUnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;
  readonly code = 'service_unavailable';
  constructor(message = 'The service is temporarily unavailable; retry shortly') {
    super(message);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly kind = 'payload_too_large' as const;
  readonly code = 'payload_too_large';
}

export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited' as const;
  readonly code = 'rate_limited';
  constructor(readonly retryAfterSeconds: number) {
    super('Too many requests; retry after the number of seconds in Retry-After');
  }
}
