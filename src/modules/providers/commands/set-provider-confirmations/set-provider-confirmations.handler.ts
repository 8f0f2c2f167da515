import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetOrganizationProfileQuery } from '../../../organizations';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { findCatalogProvider, MAX_REQUIRED_CONFIRMATIONS } from '../../domain/catalog';
import { PROVIDER_SETTINGS_CHANGED, ProviderSettingsCache } from '../../persistence/provider-settings-cache';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { ProviderConfirmationsChanged, SetProviderConfirmationsCommand } from './set-provider-confirmations.command';

@CommandHandler(SetProviderConfirmationsCommand)
export class SetProviderConfirmationsHandler implements ICommandHandler<SetProviderConfirmationsCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(ProviderSettingsCache) private readonly cache: ProviderSettingsCache,
  ) {}

  async execute({ organizationId, providerId, count, modes }: SetProviderConfirmationsCommand): Promise<ProviderConfirmationsChanged> {
    const provider = findCatalogProvider(providerId);
    if (!provider) throw new ValidationFailedError({ provider: `unknown provider "${providerId}"` });
    if (provider.type !== 'CRYPTOCURRENCY')
      throw new ValidationFailedError({ provider: `${provider.id} is a fiat provider; its payments have no confirmations` });
    if (count !== null && (!Number.isSafeInteger(count) || count < 1 || count > MAX_REQUIRED_CONFIRMATIONS)) {
      throw new ValidationFailedError({ count: `must be a whole number from 1 to ${MAX_REQUIRED_CONFIRMATIONS}, or "default"` });
    }
    const now = this.clock.now();
    // Organizations are never deleted: checking before the transaction is as good as inside it.
    if (!(await this.queries.execute(new GetOrganizationProfileQuery(organizationId)))) throw new NotFoundError('organization');
    // Every process drops its cached settings when this commits; the answer waits until the news is out.
    const changed = await this.notifications.broadcast(PROVIDER_SETTINGS_CHANGED, (payload) =>
      this.tx.run(async (m) => {
        for (const mode of modes) await this.repo.setRequiredConfirmations(m, organizationId, mode, provider.id, count, now);
        await this.notifications.notify(m, PROVIDER_SETTINGS_CHANGED, payload);
        return {
          organization_id: organizationId,
          provider_id: provider.id,
          required_confirmations: count ?? provider.requiredConfirmations,
          catalog_required_confirmations: provider.requiredConfirmations,
          modes: [...modes],
        };
      }),
    );
    this.cache.clear();
    return changed;
  }
}
