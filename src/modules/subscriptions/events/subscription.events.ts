import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { SubscriptionView } from '../dto/subscription.view';

/**
 * The subscriptions module's events, published after commit (`@EventsHandler(SubscriptionEvent)` to react):
 * - `subscription.created`: a subscription started;
 * - `subscription.updated`: any change (status, period, cancel_at_period_end), with the changed fields
 *   before it in previousAttributes;
 * - `subscription.canceled`: it became CANCELED (after its `subscription.updated`).
 * A period's invoice is announced by the invoices' own `invoice.created`, which carries `subscription_id`.
 * The object is the subscription as `GET /subscriptions/{id}` renders it.
 */
export const SUBSCRIPTION_EVENT_TYPES = ['subscription.created', 'subscription.updated', 'subscription.canceled'] as const;
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

export class SubscriptionEvent extends DomainEvent<SubscriptionEventType, SubscriptionView> {}

declareEvents(SubscriptionEvent, SUBSCRIPTION_EVENT_TYPES);
