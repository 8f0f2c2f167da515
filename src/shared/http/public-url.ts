/**
 * Links the service hands out for people to follow (the hosted checkout page): absolute under
 * PUBLIC_BASE_URL when the deployment sets it, else a path relative to the service's own address.
 * The request's Host header is never used: a forged one must not end up in a link a payer follows.
 */
export function publicBaseUrl(): string {
  return process.env.PUBLIC_BASE_URL?.trim().replace(/\/+$/, '') ?? '';
}

/** `path` (starting with /) under PUBLIC_BASE_URL, or the path itself when it is not set. */
export function publicUrl(path: string): string {
  return `${publicBaseUrl()}${path}`;
}

/** The hosted checkout page of an invoice (GET /checkout/{invoice_id}). */
export function checkoutUrl(invoiceId: string): string {
  return publicUrl(`/checkout/${encodeURIComponent(invoiceId)}`);
}
