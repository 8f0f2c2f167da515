import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ServiceUnavailableError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import type { RateTable } from '../../domain/rate-table';
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
  ) {
    notifications.listen(RATES_CHANGED, () => this.forget());
  }

  /** Drops the remembered interval (a new snapshot may split it). */
  forget(): void {
    this.generation += 1;
    this.current = null;
  }

  async execute({ at, snapshotId }: RatesAsOfQuery): Promise<RateTable> {
    const m = this.tx.manager;
    const id = snapshotId ?? (await this.snapshotIdAt(at ?? this.clock.now()));
    const table = id ? await this.repo.load(m, id) : null;
    if (!table) throw new ServiceUnavailableError('No exchange rates are loaded');
    return table;
  }

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
