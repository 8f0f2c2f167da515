import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { Currency } from '../../../../shared/money/currency';
import { LivePaymentCurrenciesQuery } from '../../../rates';
import { ListProviderRailsQuery } from '../../ports/list-provider-rails.query';
import { GetProvidersQuery } from '../get-providers/get-providers.query';

/**
 * Answers the rates module's port: the currencies of the providers the live providers list offers
 * (decisions.md §17: enabled, and a rail with a receiving wallet can take the money now). The rails are
 * asked first: with none configured for the mode the answer is empty and the settings are not read.
 */
@QueryHandler(LivePaymentCurrenciesQuery)
export class LivePaymentCurrenciesHandler implements IQueryHandler<LivePaymentCurrenciesQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ scope }: LivePaymentCurrenciesQuery): Promise<Currency[]> {
    if (scope.mode !== 'live') return [];
    const rails = await this.queries.execute(new ListProviderRailsQuery(scope));
    if (!rails.ready.length) return [];
    const providers = await this.queries.execute(new GetProvidersQuery(scope, rails.ready));
    return [...new Set(providers.filter((p) => p.view.enabled).map((p) => p.catalog.currency))];
  }
}
