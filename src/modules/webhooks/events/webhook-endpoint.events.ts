import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { EndpointView } from '../domain/endpoint-view';

/**
 * The webhooks module's events, published after commit: an endpoint created, updated (previousAttributes),
 * deleted, or disabled by the dispatcher after failing deliveries. The object is the endpoint without its secret.
 */
export const WEBHOOK_ENDPOINT_EVENT_TYPES = [
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.disabled',
] as const;
export type WebhookEndpointEventType = (typeof WEBHOOK_ENDPOINT_EVENT_TYPES)[number];

export class WebhookEndpointEvent extends DomainEvent<WebhookEndpointEventType, EndpointView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const WEBHOOK_ENDPOINT_EVENTS = declareEvents(WebhookEndpointEvent, WEBHOOK_ENDPOINT_EVENT_TYPES);
