import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PartitionRetention } from '../../shared/db/partition-retention';
import { termsOf } from './billing/period-invoicer';
import { earliestUsageStillBilled } from './domain/billing';
import { UsageEventsRepository } from './persistence/usage-events.repository';
import { SubscriptionsConfig } from './subscriptions.config';

/**
 * Registers the usage events with the kernel's retention job: `usage_events`, one partition a month of
 * the events' `timestamp` (what a period invoice reads, so one period touches one or two months), three
 * months created ahead, months past USAGE_EVENTS_RETENTION_DAYS dropped, but only once no period invoice
 * still to be issued bills usage of that month (the month waits, and is looked at again next pass). A
 * month, not a day: periods are months or longer, and a month keeps the number of partitions low for a
 * table whose volume follows the merchants' traffic. The callers' ids live in `usage_event_keys`, which
 * is not partitioned and keeps them all.
 */
@Injectable()
export class UsageEventsRetention implements OnModuleInit {
  constructor(
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
    @Inject(UsageEventsRepository) private readonly usage: UsageEventsRepository,
    @Inject(SubscriptionsConfig) private readonly config: SubscriptionsConfig,
  ) {}

  onModuleInit(): void {
    this.retention.register({
      name: 'usage-events',
      tables: [{ table: 'usage_events', column: 'timestamp' }],
      key: { kind: 'time' },
      unit: 'month',
      ahead: 3,
      defaultPartition: true,
      recheckUnderLock: true,
      retentionDays: () => this.config.USAGE_EVENTS_RETENTION_DAYS,
      beforeDrop: async (m, month) => {
        for (const { subscription: s, unissued, lastUsage } of await this.usage.stillBilling(m, month.range.from, month.range.to)) {
          const from = earliestUsageStillBilled(termsOf(s), s.startsAt, s.nextInvoiceAt ? s.nextInvoiceIndex : null, unissued);
          if (from && lastUsage >= from) return { drop: false, reason: `subscription ${s.id} has usage in it still to be invoiced` };
        }
        return { drop: true };
      },
      afterDrop: (m, month) => this.usage.forgetMonths(m, month.from, month.to),
    });
  }
}
