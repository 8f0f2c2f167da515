import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ServiceUnavailableError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { staleRates } from '../../domain/rate-choice';
import type { RateTable } from '../../domain/rate-table';
import { RatesUnavailableError } from '../../domain/rates.errors';
import { RatesConfig } from '../../rates.config';
import { RatesRepository } from '../../persistence/rates.repository';
import { RatesAsOfQuery } from './rates-as-of.query';

/** Channel an import notifies (inside its transaction) so every process forgets which snapshot is current. */
export const RATES_CHANGED = 'rates_changed';

interface Interval {
  id: string;
  from: number;
  until: number;
}

@QueryHandler(RatesAsOfQuery)
export class RatesAsOfHandler implements IQueryHandler<RatesAsOfQuery> {
  /**
   * The snapshot in force over a time interval, so pricing at "now" costs no query while no new
   * snapshot is due or imported. Imports in any process clear it (NOTIFY); kept only while
   * notifications arrive.
   */
  private current: Interval | null = null;
  private generation = 0;

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(RatesConfig) private readonly config: RatesConfig,
  ) {
    notifications.listen(RATES_CHANGED, () => this.forget());
  }

  /** Drops the remembered interval (a new snapshot may split it). */
  forget(): void {
    this.generation += 1;
    this.current = null;
  }

  async execute({ at, snapshotId, freshFor }: RatesAsOfQuery): Promise<RateTable> {
    const m = this.tx.manager;
    const now = this.clock.now();
    const id = snapshotId ?? (await this.snapshotIdAt(at ?? now));
    const table = id ? await this.repo.load(m, id) : null;
    if (!table) throw new ServiceUnavailableError('No exchange rates are loaded');
    // Checked on the table already loaded (and cached): no query of its own.
    if (freshFor?.length && this.hasSources) {
      const stale = staleRates(table.origins, freshFor, now, this.config.RATES_MAX_AGE_SECONDS * 1000);
      if (stale.length) throw new RatesUnavailableError(stale, this.config.RATES_MAX_AGE_SECONDS, this.config.refreshSeconds);
    }
    return table;
  }

  private get hasSources(): boolean {
    return (this.sourcesOn ??= this.config.hasSources);
  }

  private sourcesOn?: boolean;

  private async snapshotIdAt(at: Date): Promise<string | null> {
    const t = at.getTime();
    const c = this.current;
    if (c && t >= c.from && t < c.until && this.notifications.live) return c.id;
    const ticket = this.generation;
    const interval = await this.repo.snapshotIntervalAt(this.tx.manager, at);
    if (!interval) return this.repo.snapshotIdAsOf(this.tx.manager, at);
    if (ticket === this.generation && this.notifications.live) {
      this.current = { id: interval.id, from: interval.from.getTime(), until: interval.until?.getTime() ?? Number.POSITIVE_INFINITY };
    }
    return interval.id;
  }
}
