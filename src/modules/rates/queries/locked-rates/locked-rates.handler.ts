import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '../../../../shared/time/clock';
import { quotedBySources, staleRates } from '../../domain/rate-choice';
import type { RateTable } from '../../domain/rate-table';
import { StaleLockedRateError } from '../../domain/rates.errors';
import { RatesConfig } from '../../rates.config';
import { RatesAsOfQuery } from '../rates-as-of/rates-as-of.query';
import { LockedRatesQuery } from './locked-rates.query';

@QueryHandler(LockedRatesQuery)
export class LockedRatesHandler implements IQueryHandler<LockedRatesQuery> {
  private readonly sources: ReadonlyArray<{ kind: string; name: string }>;

  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(RatesConfig) private readonly config: RatesConfig,
  ) {
    this.sources = config.sources;
  }

  async execute({ scope, snapshotId, currencies, lock }: LockedRatesQuery): Promise<RateTable> {
    const table = await this.queries.execute(new RatesAsOfQuery(undefined, snapshotId));
    if (scope.mode !== 'live' || this.sources.length === 0) return table;
    // Each rate's age when the lock was taken, as live pricing judged it then.
    const needed = currencies.filter((c) => quotedBySources(c, this.sources, table.origins[c]));
    const stale = staleRates(table.origins, needed, lock.from, this.config.RATES_MAX_AGE_SECONDS * 1000);
    if (stale.length) {
      const untilEnd = (lock.until.getTime() - (await this.clock.nowFor(scope)).getTime()) / 1000;
      throw new StaleLockedRateError(stale, this.config.RATES_MAX_AGE_SECONDS, Math.max(1, untilEnd), lock.until);
    }
    return table;
  }
}
