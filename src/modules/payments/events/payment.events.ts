import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { PaymentView } from '../dto/payment.views';

/**
 * The payments module's events, published after commit (`@EventsHandler(PaymentEvent)` to react):
 * `payment.created` (a payment recorded) and `payment.updated` (its status or confirmations changed;
 * previousAttributes: their values before). The object is the payment as `GET /payments/{id}` renders it.
 */
export const PAYMENT_EVENT_TYPES = ['payment.created', 'payment.updated'] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

export class PaymentEvent extends DomainEvent<PaymentEventType, PaymentView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const PAYMENT_EVENTS = declareEvents(PaymentEvent, PAYMENT_EVENT_TYPES);
