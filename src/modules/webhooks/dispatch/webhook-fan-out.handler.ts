import { Inject, Injectable } from '@nestjs/common';
import { DomainEvent } from '../../../shared/events/domain-event';
import { DurableEventHandler, type DurableEventHandlerInstance, type DurableHandlerContext } from '../../../shared/events/durable-handlers';
import { ALL_EVENTS } from '../../../shared/events/event-types';
import { newId } from '../../../shared/ids/ids';
import { type FanOutDelivery, type FanOutEvent, WebhookDeliveriesRepository } from '../persistence/webhook-deliveries.repository';
import { WEBHOOK_FAN_OUT, WebhookDispatcher } from './webhook-dispatcher';

function objectIdOf(event: DomainEvent): string | null {
  const object = event.object as { id?: unknown } | null;
  return object && typeof object.id === 'string' ? object.id : null;
}

/**
 * Queues the webhook deliveries of every committed event, whichever module recorded it: one pending
 * delivery per endpoint that takes the event (FAN_OUT_TARGETS in the deliveries repository), in commit
 * order, then by endpoint id. A durable handler: each batch of events is read after its writers
 * committed, and its deliveries commit with the handler's cursor, so a crash before that commit hands
 * the batch to the next start (or another instance) and nothing is queued twice; a pass runs as soon as
 * this process commits an event, and on the durable handlers' poll for other instances' events.
 *
 * Once deliveries are queued, the dispatcher's next pass is brought forward (after the commit), so a
 * delivery goes out right after its event without waiting out WEBHOOK_DISPATCH_INTERVAL_MS.
 */
@Injectable()
@DurableEventHandler(WEBHOOK_FAN_OUT, DomainEvent, [ALL_EVENTS])
export class WebhookFanOutHandler implements DurableEventHandlerInstance {
  constructor(
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher,
  ) {}

  handle(event: DomainEvent, context: DurableHandlerContext): Promise<void> {
    return this.handleBatch([event], context);
  }

  async handleBatch(events: readonly DomainEvent[], context: DurableHandlerContext): Promise<void> {
    const batch: FanOutEvent[] = events.map((e) => ({
      id: e.id,
      organizationId: e.scope.organizationId,
      mode: e.scope.mode,
      type: e.type,
      createdAt: e.createdAt,
      objectId: objectIdOf(e),
    }));
    const targets = await this.deliveries.fanOutTargets(context.manager, batch);
    if (!targets.length) return;
    // Ids made here, in this order: UUIDv7s of one process grow, so the dispatcher claims them in commit order.
    const queued: FanOutDelivery[] = targets.map(({ index, endpointId, epoch }) => {
      const event = batch[index];
      return {
        id: newId('delivery'),
        organizationId: event.organizationId,
        mode: event.mode,
        endpointId,
        endpointEpoch: epoch,
        eventId: event.id,
        createdAt: event.createdAt,
      };
    });
    await this.deliveries.insertFanOut(context.manager, queued);
    context.afterCommit(() => this.dispatcher.soon());
  }
}
