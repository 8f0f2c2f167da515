import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import type { Subscription } from 'rxjs';
import { DomainEvent } from '../../../shared/events/domain-event';
import { WebhookDispatcher } from './webhook-dispatcher';

/**
 * The webhooks module's reaction to every module's committed events: a delivery per subscribed
 * endpoint was queued with the event's row (the `events_webhook_fan_out` trigger), so the dispatcher's
 * next pass is brought forward (WebhookDispatcher.soon) instead of waiting out its interval. It hears
 * every DomainEvent on the EventBus, whichever module declared it, so webhooks imports no producer.
 * Errors are logged here: handlers on the bus are not seen by the exception filter.
 */
@Injectable()
export class DeliverCommittedEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('DeliverCommittedEvents');
  private subscription: Subscription | null = null;

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    this.subscription = this.bus.subscribe((event) => {
      if (!(event instanceof DomainEvent)) return;
      try {
        this.dispatcher.soon();
      } catch (e) {
        this.logger.warn({ err: (e as Error).message, event: event.type }, 'could not bring the webhook dispatch forward');
      }
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
