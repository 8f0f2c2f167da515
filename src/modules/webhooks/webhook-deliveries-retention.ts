import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PartitionRetention } from '../../shared/db/partition-retention';
import { EVENTS_RETENTION } from '../events';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhooksConfig } from './webhooks.config';

/**
 * Registers the webhook deliveries with the kernel's retention job: `webhook_deliveries` and
 * `webhook_attempts`, one partition a month of their event's id (`event_<UUIDv7>`: a delivery and its
 * attempts live in the month of the event they carry, the months `events` has), two months created ahead,
 * with default partitions. A month past WEBHOOK_DELIVERIES_RETENTION_DAYS is dropped (deliveries and
 * attempts together) only when none of its deliveries is pending: one waiting for a retry, being sent, or
 * asked for again (a redelivery of an old event lands in that event's month) keeps the month, and is
 * looked at again next pass.
 *
 * The deliveries' `event_id` is registered as a reference of the events' plan: a month of events is not
 * dropped while a delivery of one of its events is kept, so a retrying delivery always finds its event
 * and the attempts list always finds its attempts' event types.
 */
@Injectable()
export class WebhookDeliveriesRetention implements OnModuleInit {
  constructor(
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
  ) {}

  onModuleInit(): void {
    this.retention.addReference(EVENTS_RETENTION, { table: 'webhook_deliveries', column: 'event_id' });
    this.retention.register({
      name: 'webhook-deliveries',
      tables: [
        { table: 'webhook_deliveries', column: 'event_id' },
        { table: 'webhook_attempts', column: 'event_id' },
      ],
      key: { kind: 'id', prefix: 'event_' },
      unit: 'month',
      ahead: 2,
      defaultPartition: true,
      recheckUnderLock: true,
      retentionDays: () => this.config.WEBHOOK_DELIVERIES_RETENTION_DAYS,
      beforeDrop: async (m, month) => {
        const pending = await this.deliveries.pendingOfEvents(m, month.lower, month.upper);
        return pending ? { drop: false, reason: `delivery ${pending} is still pending` } : { drop: true };
      },
    });
  }
}
