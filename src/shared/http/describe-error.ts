import { DomainError, STATUS_BY_KIND } from '../errors/domain-error';

const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
]);

function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; driverError?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code && DB_UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.driverError && isDatabaseUnavailable(e.driverError)) return true;
  const message = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Connection is not established/.test(
    message,
  );
}

const HTTP_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'route_not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
};

export interface DescribedError {
  status: number;
  code: string;
  error: string;
  validator: Record<string, string> | null;
}

/** Nest's HttpException, recognised by shape so this file stays free of framework imports. */
interface HttpExceptionLike {
  getStatus(): number;
  getResponse(): string | object;
  message: string;
}

function isHttpException(e: unknown): e is HttpExceptionLike {
  const candidate = e as Partial<HttpExceptionLike> | null;
  return !!candidate && typeof candidate === 'object' && typeof candidate.getStatus === 'function' && typeof candidate.getResponse === 'function';
}

/**
 * How a failure is shown to the client: pure mapping from what was thrown to status, code, text and
 * field errors. Anything unexpected becomes a bare 500 whose text says nothing about the cause (the
 * filter logs the cause with the support id); a lost database becomes 503.
 */
export function describeError(exception: unknown, request: { method: string; path: string }): DescribedError {
  if (exception instanceof DomainError) {
    return { status: STATUS_BY_KIND[exception.kind], code: exception.code, error: exception.message, validator: exception.fields };
  }
  if (isHttpException(exception)) {
    const status = exception.getStatus();
    if (status === 404) {
      return { status, code: 'route_not_found', error: `No route for ${request.method} ${request.path}`, validator: null };
    }
    if (status >= 500) return { status, code: 'internal_error', error: 'Internal server error', validator: null };
    const body = exception.getResponse() as { message?: unknown } | string;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever Nest put in message is shown as text, as before
    const text = typeof body === 'string' ? body : Array.isArray(body.message) ? body.message.join('; ') : String(body.message ?? exception.message);
    // The router could not percent-decode a path segment: the path is the field at fault.
    if (status === 400 && /^Failed to decode param/.test(text)) {
      return {
        status,
        code: 'malformed_path',
        error: 'The URL path is not valid percent-encoded UTF-8',
        validator: { path: 'must be valid percent-encoded UTF-8' },
      };
    }
    return { status, code: HTTP_CODES[status] ?? 'bad_request', error: text, validator: null };
  }
  if (isDatabaseUnavailable(exception)) {
    return { status: 503, code: 'service_unavailable', error: 'The database is unreachable; retry shortly', validator: null };
  }
  return { status: 500, code: 'internal_error', error: 'Internal server error', validator: null };
}
