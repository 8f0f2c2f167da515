import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { findCatalogProvider } from '../../domain/catalog';
import { enabledOf, requiredConfirmationsOf } from '../../dto/provider.views';
import { ProviderSettingsCache } from '../../persistence/provider-settings-cache';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { GetProviderTermsQuery, ProviderTerms } from './get-provider-terms.query';

@QueryHandler(GetProviderTermsQuery)
export class GetProviderTermsHandler implements IQueryHandler<GetProviderTermsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
    @Inject(ProviderSettingsCache) private readonly cache: ProviderSettingsCache,
  ) {}

  async execute({ scope, providerId }: GetProviderTermsQuery): Promise<ProviderTerms | null> {
    const catalog = findCatalogProvider(providerId);
    if (!catalog) return null;
    const key = ProviderSettingsCache.key(scope.organizationId, scope.mode, catalog.id);
    // Kept whether or not the organization has a setting (null: none).
    const setting = (await this.cache.getOrLoad(key, () => this.repo.setting(this.tx.manager, scope, catalog.id))) ?? undefined;
    return { catalog, enabled: enabledOf(setting), requiredConfirmations: requiredConfirmationsOf(catalog, setting) };
  }
}
