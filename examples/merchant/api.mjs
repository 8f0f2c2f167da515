// The few calls this shop makes to the invoicing API, with Node's own fetch.
// Every answer is an envelope: { status, data, error, message, validator, support_id, ... }.

/** A setting from the environment, or a message saying what to set and exits. */
export function setting(name, fallback) {
  const value = process.env[name] || fallback;
  if (value === undefined) {
    console.error(`${name} is not set (see examples/README.md)`);
    process.exit(2);
  }
  return value;
}

export const API_BASE_URL = setting('API_BASE_URL', 'http://127.0.0.1:3000').replace(/\/+$/, '');

export class ApiError extends Error {
  constructor(status, envelope) {
    const fields = envelope?.validator ? ` ${JSON.stringify(envelope.validator)}` : '';
    super(`${status} ${envelope?.code ?? ''}: ${envelope?.error ?? 'no envelope'}${fields} (support id ${envelope?.support_id ?? '-'})`);
    this.status = status;
    this.envelope = envelope;
  }
}

/**
 * Calls the API with the merchant's key and returns the envelope's `data`.
 * Throws ApiError on any answer that is not 2xx (quote its support id to the operator).
 */
export async function api(method, path, body, { key = setting('API_KEY'), idempotencyKey } = {}) {
  const headers = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // A retry with the same Idempotency-Key never creates a second invoice.
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${API_BASE_URL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const envelope = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, envelope);
  return envelope.data;
}

/**
 * The payer's address of an invoice's hosted checkout page. `checkout_url` is absolute when the
 * service has PUBLIC_BASE_URL (production), else a path on the service: resolve it against the API.
 */
export function checkoutAddress(invoice) {
  return new URL(invoice.checkout_url, `${API_BASE_URL}/`).href;
}
