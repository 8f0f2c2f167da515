import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { InvoiceView } from '../dto/invoice.views';

/**
 * The invoices module's events, published after commit (`@EventsHandler(InvoiceEvent)` to react):
 * - `invoice.created`: a new invoice;
 * - `invoice.updated`: any change (previousAttributes: the changed fields before it);
 * - `invoice.completed` / `invoice.voided`: it reached that final status (after its `invoice.updated`);
 * - `invoice.expired`: it passed expires_at unpaid (first time its substatus became EXPIRED).
 * The object is the invoice as `POST /invoices/{id}` renders it.
 */
export const INVOICE_EVENT_TYPES = ['invoice.created', 'invoice.updated', 'invoice.completed', 'invoice.voided', 'invoice.expired'] as const;
export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

export class InvoiceEvent extends DomainEvent<InvoiceEventType, InvoiceView> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const INVOICE_EVENTS = declareEvents(InvoiceEvent, INVOICE_EVENT_TYPES);
