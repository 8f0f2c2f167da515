import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PartitionRetention } from '../../shared/db/partition-retention';
import { Clock } from '../../shared/time/clock';
import { RatesRepository } from './persistence/rates.repository';
import { KEEP_MARGIN_MS } from './rate-history-days';
import { RatesConfig } from './rates.config';

/**
 * The retention plan's name of the rate history: modules whose rows hold a rate snapshot id register
 * their column under it (`PartitionRetention.addReference(RATE_HISTORY_RETENTION, ...)`), and the
 * snapshots those columns hold are kept when their day of history is dropped.
 */
export const RATE_HISTORY_RETENTION = 'rate-history';

/**
 * Registers the rate history with the kernel's retention job: `rate_snapshots_recent` and
 * `exchange_rates_recent`, one partition a day by snapshot id (ids are `rates_<UUIDv7>`, ordered by the
 * time they were written), a week created ahead, days past RATES_HISTORY_RETENTION_DAYS dropped after
 * the snapshots still held or in force are copied into the kept tables (reads see both, through the
 * `rate_snapshots` and `exchange_rates` views). A day, not a month: at the default refresh a day is about
 * 15 MB, so the history stays within a day of its setting, and a drop frees a small table at a time.
 *
 * The references are read once, without locks (no `recheckUnderLock`: a payment is valued before its
 * transaction, so locking the history would only hold up every price read). A write still open then is not
 * seen; one that records a snapshot whose day goes soon (`goesSoon`, rate-history-days.ts) copies it into the
 * kept tables itself, in its own transaction, under the keep lock that `keepSnapshots` takes exclusively
 * before the drop (KeepRatesSnapshotCommand, RatesRepository.keepSnapshot; docs/performance.md, "Tables that
 * stay small").
 */
@Injectable()
export class RateHistoryRetention implements OnModuleInit {
  constructor(
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(RatesConfig) private readonly config: RatesConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.retention.register({
      name: RATE_HISTORY_RETENTION,
      tables: [
        { table: 'rate_snapshots_recent', column: 'id' },
        { table: 'exchange_rates_recent', column: 'snapshot_id' },
      ],
      key: { kind: 'id', prefix: 'rates_' },
      unit: 'day',
      ahead: 7,
      defaultPartition: true,
      retentionDays: () => this.config.RATES_HISTORY_RETENTION_DAYS,
      // Kept as well: every snapshot in force at some moment of the last KEEP_MARGIN_MS, which a write priced
      // at the rates then in force (an invoice) may record after the references were read.
      beforeDrop: async (m, day) => ({
        drop: true,
        kept: await this.repo.keepSnapshots(m, day.lower, day.upper, day.referenced, new Date(this.clock.now().getTime() - KEEP_MARGIN_MS)),
      }),
    });
  }
}
