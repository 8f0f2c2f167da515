// The public payer API, called exactly as a merchant's own checkout would (no key, no cookies).
import { cfg } from './page.js';

const EXPAND = ['items', 'items.product', 'calculations', 'organization', 'payments'];

export async function api(method, path, body) {
  const res = await fetch(`${cfg.apiBase}${path}`, {
    method,
    headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  let envelope = null;
  try {
    envelope = await res.json();
  } catch {
    // not JSON: a proxy's error page
  }
  if (!res.ok) {
    const err = new Error(envelope?.error ?? `HTTP ${res.status}`);
    err.status = res.status;
    err.code = envelope?.code ?? null;
    throw err;
  }
  return envelope;
}

export const id = encodeURIComponent(cfg.invoiceId);
export const readInvoice = async () => (await api('POST', `/invoices/${id}`, { expand: EXPAND })).data;
export const readProviders = async () => (await api('GET', `/providers/${id}`)).data.providers;
export const readShortState = async () => (await api('GET', `/invoices/${id}/short_state`)).data;
