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
    let setting = await this.cache.get(key);
    if (setting === undefined) {
      const ticket = this.cache.ticket();
      setting = await this.repo.setting(this.tx.manager, scope, catalog.id);
      this.cache.set(key, setting, ticket);
    }
    return { catalog, enabled: enabledOf(setting ?? undefined), requiredConfirmations: requiredConfirmationsOf(catalog, setting ?? undefined) };
  }
}
