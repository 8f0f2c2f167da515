import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema';

export { WebhookVerificationError };

/** The body of a webhook delivery: the event, as `POST /events/{id}` returns it. */
export type WebhookEvent = components['schemas']['EventDto'];

/** Request headers as Node's `req.headers`, a fetch `Headers`, or a plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`:
 * HMAC-SHA256 with the endpoint's `whsec_...` secret, timestamp within 5 minutes) and returns the event.
 * Pass the body exactly as received (a string or the raw bytes), before any JSON parsing. Throws
 * `WebhookVerificationError` when the signature or timestamp does not hold.
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const flat: Record<string, string> = {};
  const entries: Iterable<[string, string | string[] | undefined]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  }
  const payload = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Webhook(secret).verify(payload, flat) as WebhookEvent;
}
