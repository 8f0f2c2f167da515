import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { SubscriptionView } from '../dto/subscription.view';

/**
 * The subscriptions module's events, published after commit (`@EventsHandler(SubscriptionEvent)` to react):
 * - `subscription.created`: a subscription started;
 * - `subscription.updated`: any change (status, period, cancel_at_period_end, latest invoice), with the
 *   changed fields before it in previousAttributes;
 * - `subscription.canceled`: it became CANCELED (after its `subscription.updated`).
 * A period's invoice is announced by the invoices' own `invoice.created`, which carries `subscription_id`.
 * The object is the subscription as `GET /subscriptions/{id}` renders it.
 */
export const SUBSCRIPTION_EVENT_TYPES = ['subscription.created', 'subscription.updated', 'subscription.canceled'] as const;
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

export class SubscriptionEvent extends DomainEvent<SubscriptionEventType, SubscriptionView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const SUBSCRIPTION_EVENTS = declareEvents(SubscriptionEvent, SUBSCRIPTION_EVENT_TYPES);

/** A period whose invoice could not be issued (the webhook's `data.object`). */
export interface SubscriptionInvoiceFailureView {
  subscription_id: string;
  period_start: string;
  period_end: string;
  /** Why the invoice could not be made, as the invoice's creation answered. */
  error: string;
  /** Attempts so far; the period is tried again on later passes. */
  attempts: number;
  subscription: SubscriptionView;
}

/**
 * `subscription.invoice_failed`: a period's invoice could not be issued when it fell due (sent once per
 * period, at the first failure; it is tried again on later passes, and the subscription's later
 * periods and other subscriptions go on meanwhile).
 */
export const SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES = ['subscription.invoice_failed'] as const;
export type SubscriptionInvoiceFailureEventType = (typeof SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES)[number];

export class SubscriptionInvoiceFailedEvent extends DomainEvent<SubscriptionInvoiceFailureEventType, SubscriptionInvoiceFailureView> {}

export const SUBSCRIPTION_INVOICE_FAILURE_EVENTS = declareEvents(SubscriptionInvoiceFailedEvent, SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES);
