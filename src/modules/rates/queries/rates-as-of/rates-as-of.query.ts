import { Query } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import type { RateTable } from '../../domain/rate-table';

/**
 * The rates in force at a time (default now): the newest snapshot taken at or before it. With
 * `freshFor` (live pricing that locks prices in), when live sources are configured every one of
 * those currencies' rates must be at most RATES_MAX_AGE_SECONDS old, or RatesUnavailableError.
 */
export class RatesAsOfQuery extends Query<RateTable> {
  constructor(
    readonly at?: Date,
    readonly snapshotId?: string,
    readonly freshFor?: readonly Currency[],
  ) {
    super();
  }
}
