import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { findCatalogProvider } from '../../domain/catalog';
import { enabledOf, requiredConfirmationsOf } from '../../dto/provider.views';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { GetProviderTermsQuery, ProviderTerms } from './get-provider-terms.query';

@QueryHandler(GetProviderTermsQuery)
export class GetProviderTermsHandler implements IQueryHandler<GetProviderTermsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
  ) {}

  async execute({ scope, providerId }: GetProviderTermsQuery): Promise<ProviderTerms | null> {
    const catalog = findCatalogProvider(providerId);
    if (!catalog) return null;
    const setting = (await this.repo.setting(this.tx.manager, scope, catalog.id)) ?? undefined;
    return { catalog, enabled: enabledOf(setting), requiredConfirmations: requiredConfirmationsOf(catalog, setting) };
  }
}
