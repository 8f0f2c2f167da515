import type { Request } from 'express';
import type { AppConfig } from '../config/app-config';

/** `localhost`, a 127.x.x.x address or `[::1]`, with an optional port. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

/** Whether a Host header names this machine's loopback interface (and nothing else). */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

/**
 * The base of the absolute URLs a response carries (provider images, file URLs): PUBLIC_BASE_URL,
 * which production requires at start. Without it (development and test only) the request's own
 * Host is used when it names a loopback address, so `npm start` works on localhost; any other Host
 * gives `http://localhost:PORT`. An unvalidated Host header never reaches a response, so a shared
 * cache cannot be made to keep links to somebody else's site.
 */
export function publicBaseUrl(config: AppConfig, req: Request): string {
  const configured = config.publicBaseUrl;
  if (configured) return configured;
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const host = req.get('host') ?? '';
  return isLoopbackHost(host) ? `${protocol}://${host.toLowerCase()}` : `${protocol}://localhost:${config.PORT}`;
}

/**
 * The hosted checkout page of an invoice (GET /checkout/{invoice_id}), as the invoice read's
 * `checkout_url`: absolute under PUBLIC_BASE_URL when it is set, else the path alone (relative to
 * the service's address). Unlike publicBaseUrl this never falls back to the request's Host: the
 * link is stored in events and sent to payers, long after the request that made it.
 */
export function checkoutUrl(invoiceId: string): string {
  return `${storedLinkBase()}/checkout/${encodeURIComponent(invoiceId)}`;
}

/**
 * A stored file's content (GET /files/{id}/content, served with an API key of its organization and
 * mode) as other objects embed it: absolute under PUBLIC_BASE_URL when set, else the path alone,
 * like checkoutUrl (an embedding outlives the request that made it).
 */
export function fileContentUrl(fileId: string): string {
  return `${storedLinkBase()}/files/${encodeURIComponent(fileId)}/content`;
}

/** The base of links that outlive their request: PUBLIC_BASE_URL without a trailing slash, or '' (a path alone). */
function storedLinkBase(): string {
  return process.env.PUBLIC_BASE_URL?.trim().replace(/\/+$/, '') ?? '';
}
