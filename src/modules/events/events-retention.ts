import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PartitionRetention } from '../../shared/db/partition-retention';
import { DurableEventHandlers } from '../../shared/events/durable-handlers';
import { EventsConfig } from './events.config';
import { EventsRepository } from './persistence/events.repository';

/**
 * The retention plan's name of the events outbox: a module whose rows hold event ids registers its column
 * under it (`PartitionRetention.addReference(EVENTS_RETENTION, ...)`, as webhooks does for its deliveries),
 * and a month of events waits while any of them is held.
 */
export const EVENTS_RETENTION = 'events';

/**
 * Registers the events outbox with the kernel's retention job: `events`, one partition a month of the
 * event id (`event_<UUIDv7>`, ordered by the time it was made), two months created ahead, with a default
 * partition; a month past EVENTS_RETENTION_DAYS is dropped only when nothing still needs it:
 *
 * - every durable handler has read every event in it: none of its events is at or after the lowest cursor
 *   in commit order (`DurableEventHandlers.lowestCursor`, read in the dropping transaction), so a handler
 *   that is behind (failing, or stopped with its cursor kept) keeps the month;
 * - no other table's row registered as a reference (webhook deliveries, and so their attempts) holds one
 *   of its events: a month of events goes after the deliveries of that month, never before.
 *
 * A month, not a day: the durable handlers' read (in commit order, which the id does not bound) and the
 * events list (by organization and creation time) look at every partition, so the count stays small.
 */
@Injectable()
export class EventsRetention implements OnModuleInit {
  constructor(
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
    @Inject(DurableEventHandlers) private readonly handlers: DurableEventHandlers,
    @Inject(EventsRepository) private readonly events: EventsRepository,
    @Inject(EventsConfig) private readonly config: EventsConfig,
  ) {}

  onModuleInit(): void {
    this.retention.register({
      name: EVENTS_RETENTION,
      tables: [{ table: 'events', column: 'id' }],
      key: { kind: 'id', prefix: 'event_' },
      unit: 'month',
      ahead: 2,
      defaultPartition: true,
      recheckUnderLock: true,
      retentionDays: () => this.config.EVENTS_RETENTION_DAYS,
      beforeDrop: async (m, month) => {
        if (month.referenced.length) return { drop: false, reason: `${month.referenced.length} events still held by a kept webhook delivery` };
        const cursor = await this.handlers.lowestCursor(m);
        const unread = cursor && (await this.events.firstAfter(m, month.lower, month.upper, cursor));
        if (unread) return { drop: false, reason: `event ${unread} not read yet by every durable handler` };
        return { drop: true };
      },
    });
  }
}
