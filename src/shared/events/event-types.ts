/**
 * Every kind of event the service records. A webhook endpoint subscribes to some of them or to
 * all (`*`); `POST /events` filters by them. Add a type here before recording it.
 */
export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.completed',
  'invoice.voided',
  'invoice.expired',
  'payment.created',
  'payment.updated',
  'transfer.unmatched',
  'wallet.gap_warning',
  'product.created',
  'product.updated',
  'file.created',
  'file.deleted',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Subscribes an endpoint to every event type, including types added later. */
export const ALL_EVENTS = '*';

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
