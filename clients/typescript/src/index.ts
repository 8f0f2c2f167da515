import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from './webhooks';

/** Every schema of the API, by its OpenAPI name (`Schemas['InvoiceDto']`). */
export type Schemas = components['schemas'];
export type Invoice = Schemas['InvoiceDto'];
export type InvoiceList = Schemas['InvoiceListDto'];
export type CreateInvoiceRequest = Schemas['CreateInvoiceRequestDto'];
export type Payment = Schemas['PaymentDto'];
export type PaymentList = Schemas['PaymentListDto'];
export type Currency = Schemas['Currency'];
/** The error envelope: `error` (a sentence), `code`, `validator` (field path to message, or null), `support_id`. */
export type ErrorEnvelope = Schemas['ErrorEnvelopeDto'];

/** The typed client: `client.POST('/invoices/create', { body })`, `client.GET('/invoices/{id}/short_state', { params: { path: { id } } })`. */
export type InvoicingClient = Client<paths>;

export interface CreateClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service answers, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /** `sk_test_...` or `sk_live_...`; leave it out for payer calls (an invoice id is then the capability). */
  apiKey?: string;
}

/**
 * A client for every operation of the API, typed from its OpenAPI document (openapi-fetch). Each call
 * resolves to `{ data, error, response }`: `data` is the success envelope (its `data` field holds the
 * resource), `error` the error envelope. `unwrap()` turns that into the resource or an `ApiError`.
 */
export function createClient({ baseUrl, apiKey, headers, ...options }: CreateClientOptions): InvoicingClient {
  const merged = toHeaders(headers);
  if (apiKey && !merged.has('authorization')) merged.set('authorization', `Bearer ${apiKey}`);
  return createFetchClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, ''), headers: merged });
}

function toHeaders(headers: ClientOptions['headers']): Headers {
  if (!headers || headers instanceof Headers || Array.isArray(headers)) return new Headers(headers);
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === null || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, String(one));
  }
  return out;
}

/** A non-2xx answer: its HTTP status and, when the service wrote it, the error envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope | undefined,
  ) {
    super(envelope?.error ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }

  /** The stable machine-readable code (`validation_failed`, `invoice_not_found`, ...). */
  get code(): string | undefined {
    return this.envelope?.code;
  }

  /** Field path to message for invalid input (`{ 'items.0.price': '...' }`), else null. */
  get validator(): Record<string, string> | null {
    return this.envelope?.validator ?? null;
  }
}

interface CallResult {
  data?: { data: unknown };
  error?: unknown;
  response: Response;
}

/**
 * The resource of a successful call (the envelope's `data`), or throws an `ApiError` carrying the error
 * envelope: `const invoice = await unwrap(client.POST('/invoices/{id}', { params: { path: { id } } }))`.
 */
export async function unwrap<R extends CallResult>(call: Promise<R> | R): Promise<NonNullable<R['data']>['data']> {
  const result = await call;
  if (result.data !== undefined && result.response.ok) return result.data.data;
  const body = result.error;
  const envelope = body && typeof body === 'object' && 'error' in body ? (body as ErrorEnvelope) : undefined;
  throw new ApiError(result.response.status, envelope);
}
