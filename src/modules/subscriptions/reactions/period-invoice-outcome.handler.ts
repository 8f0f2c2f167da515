import { Inject } from '@nestjs/common';
import { EventsHandler, IEventHandler } from '@nestjs/cqrs';
import { InvoiceEvent } from '../../invoices';
import { SubscriptionScheduler } from '../subscription-scheduler';

/**
 * Dunning as soon as a period invoice is decided: a subscription's invoice COMPLETED or VOIDED
 * (`invoice.completed`, `invoice.voided` carrying `subscription_id`) brings the scheduler's settling of
 * period invoices forward, so the subscription turns PAST_DUE, ACTIVE again or CANCELED without waiting
 * for SUBSCRIPTIONS_TICK_SECONDS. In-process and at most once: the scheduler's pass still reads every
 * open period invoice, so an event this instance did not see (another instance voided it, a restart)
 * is settled on its next tick all the same.
 */
@EventsHandler(InvoiceEvent)
export class PeriodInvoiceOutcomeHandler implements IEventHandler<InvoiceEvent> {
  constructor(@Inject(SubscriptionScheduler) private readonly scheduler: SubscriptionScheduler) {}

  handle(event: InvoiceEvent): void {
    if (event.type !== 'invoice.completed' && event.type !== 'invoice.voided') return;
    if (!event.object.subscription_id) return;
    this.scheduler.settleSoon();
  }
}
