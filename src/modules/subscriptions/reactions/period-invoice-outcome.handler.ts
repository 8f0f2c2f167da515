import { Inject, Injectable } from '@nestjs/common';
import { DurableEventHandler, type DurableEventHandlerInstance, type DurableHandlerContext } from '../../../shared/events/durable-handlers';
import { InvoiceEvent } from '../../invoices';
import { SubscriptionScheduler } from '../subscription-scheduler';

/**
 * Dunning as soon as a period invoice is decided: a subscription's invoice COMPLETED or VOIDED
 * (`invoice.completed`, `invoice.voided` carrying `subscription_id`) brings the scheduler's settling of
 * period invoices forward, so the subscription turns PAST_DUE, ACTIVE again or CANCELED without waiting
 * for SUBSCRIPTIONS_TICK_SECONDS.
 *
 * A durable handler: it sees every such event once, in commit order, whichever instance committed it
 * and across restarts (a crash before it ran hands the event to the next start). It writes nothing
 * itself: the nudge goes out once its cursor has moved past the event, and the scheduler's pass reads
 * every open period invoice, so a nudge that is lost (the instance stops right after) only waits for
 * the next tick, as before.
 */
@Injectable()
@DurableEventHandler('subscriptions.period_invoice_outcome', InvoiceEvent, ['invoice.completed', 'invoice.voided'])
export class PeriodInvoiceOutcomeHandler implements DurableEventHandlerInstance<InvoiceEvent> {
  constructor(@Inject(SubscriptionScheduler) private readonly scheduler: SubscriptionScheduler) {}

  handle(event: InvoiceEvent, context: DurableHandlerContext): void {
    if (!event.object.subscription_id) return;
    context.afterCommit(() => this.scheduler.settleSoon());
  }
}
