import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import { Clock } from '../../../../shared/time/clock';
import { quotedBySources, staleRates } from '../../domain/rate-choice';
import type { RateTable } from '../../domain/rate-table';
import { RatesUnavailableError } from '../../domain/rates.errors';
import { LivePaymentCurrenciesQuery } from '../../ports/live-payment-currencies.query';
import { RatesConfig } from '../../rates.config';
import { RatesAsOfQuery } from '../rates-as-of/rates-as-of.query';
import { PricingRatesQuery } from './pricing-rates.query';

@QueryHandler(PricingRatesQuery)
export class PricingRatesHandler implements IQueryHandler<PricingRatesQuery> {
  private readonly sources: ReadonlyArray<{ kind: string; name: string }>;

  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(RatesConfig) private readonly config: RatesConfig,
  ) {
    this.sources = config.sources;
  }

  async execute({ scope, currencies, paymentMethods }: PricingRatesQuery): Promise<RateTable> {
    const guarded = scope.mode === 'live' && this.sources.length > 0;
    const [table, methods] = await Promise.all([
      this.queries.execute(new RatesAsOfQuery()),
      guarded && paymentMethods ? this.queries.execute(new LivePaymentCurrenciesQuery(scope)) : ([] as Currency[]),
    ]);
    if (!guarded) return table;
    const needed = new Set(currencies);
    // A method's currency no source quotes keeps the table's rate: needing it fresh would refuse every price.
    for (const c of methods) if (quotedBySources(c, this.sources, table.origins[c])) needed.add(c);
    const stale = staleRates(table.origins, needed, this.clock.now(), this.config.RATES_MAX_AGE_SECONDS * 1000);
    if (stale.length) throw new RatesUnavailableError(stale, this.config.RATES_MAX_AGE_SECONDS, this.config.refreshSeconds);
    return table;
  }
}
