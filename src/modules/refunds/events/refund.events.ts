import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { RefundView } from '../dto/refund.views';

/**
 * The refunds module's events, published after commit (`@EventsHandler(RefundEvent)` to react):
 * - `refund.created`: a merchant asked for a refund;
 * - `refund.updated`: any later change (destination given, payout reported, confirmations, expiry), with
 *   the changed fields before it in previousAttributes;
 * - `refund.completed` / `refund.canceled`: it reached that status.
 * The object is the refund as `GET /refunds/{id}` renders it.
 */
export const REFUND_EVENT_TYPES = ['refund.created', 'refund.updated', 'refund.completed', 'refund.canceled'] as const;
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];

export class RefundEvent extends DomainEvent<RefundEventType, RefundView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const REFUND_EVENTS = declareEvents(RefundEvent, REFUND_EVENT_TYPES);
