import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { RateTable } from '../../domain/rate-table';

/**
 * The rates a price fixed now takes: the rates in force, guarded (decisions.md §21). In live mode with
 * live sources every rate the price needs must be at most RATES_MAX_AGE_SECONDS old, else
 * RatesUnavailableError (503 rates_unavailable): each of `currencies`, and with `paymentMethods` (an
 * invoice or a quote, whose snapshot later prices every way to pay it) the currency of every method the
 * organization can be paid with live, unless no source quotes that currency. Test mode, and a service
 * without sources, take the table as it stands.
 */
export class PricingRatesQuery extends Query<RateTable> {
  constructor(
    readonly scope: Scope,
    readonly currencies: readonly Currency[],
    readonly paymentMethods = false,
  ) {
    super();
  }
}
