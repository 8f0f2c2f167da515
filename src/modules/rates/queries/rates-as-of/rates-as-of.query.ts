import { Query } from '@nestjs/cqrs';
import type { RateTable } from '../../domain/rate-table';

/** The rates in force at a time (default now): the newest snapshot taken at or before it. */
export class RatesAsOfQuery extends Query<RateTable> {
  constructor(
    readonly at?: Date,
    readonly snapshotId?: string,
  ) {
    super();
  }
}
