import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { RateTable } from '../../domain/rate-table';

/**
 * The rates an invoice's rate lock holds (its snapshot, from `lock.from` until `lock.until`), for a price in
 * `currencies`. The lock is the agreed price only for rates that were fresh when it was taken: in live mode
 * with live sources, a currency whose rate in the snapshot was already older than RATES_MAX_AGE_SECONDS at
 * `lock.from` (a method enabled after the invoice was priced, while its sources were failing) is refused with
 * RatesUnavailableError (503 rates_unavailable, Retry-After at the lock's end, when today's guarded rate
 * prices it). Test mode, and a service without sources, take the snapshot as it stands.
 */
export class LockedRatesQuery extends Query<RateTable> {
  constructor(
    readonly scope: Scope,
    readonly snapshotId: string,
    readonly currencies: readonly Currency[],
    readonly lock: { from: Date; until: Date },
  ) {
    super();
  }
}
