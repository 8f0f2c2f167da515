import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { GetOrganizationProfileQuery } from '../../../organizations';
import { canonicalProviderId, PROVIDER_CATALOG } from '../../domain/catalog';
import { providerView } from '../../dto/provider.views';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { GetProvidersQuery, ScopedProvider } from './get-providers.query';

@QueryHandler(GetProvidersQuery)
export class GetProvidersHandler implements IQueryHandler<GetProvidersQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  async execute({ scope, ids }: GetProvidersQuery): Promise<ScopedProvider[]> {
    const wanted = ids ? new Set(ids.map(canonicalProviderId)) : null;
    const catalog = PROVIDER_CATALOG.filter((p) => !wanted || wanted.has(p.id));
    if (!catalog.length) return [];
    const m = this.tx.readsFor(scope);
    const [settings, org] = await Promise.all([this.repo.settings(m, scope), this.queries.execute(new GetOrganizationProfileQuery(scope.organizationId))]);
    if (!org) throw new NotFoundError('organization');
    // A provider without a setting of its own dates from the organization (all are enabled on creation).
    const orgCreatedAt = org.createdAt;
    return catalog.map((p) => ({ catalog: p, view: providerView(p, scope.organizationId, settings.get(p.id), orgCreatedAt) }));
  }
}
