import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetOrganizationProfileQuery } from '../../../organizations';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { canonicalProviderId, isCatalogProvider } from '../../domain/catalog';
import { PROVIDER_SETTINGS_CHANGED, ProviderSettingsCache } from '../../persistence/provider-settings-cache';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { ProviderSettingChanged, SetProviderEnabledCommand } from './set-provider-enabled.command';

@CommandHandler(SetProviderEnabledCommand)
export class SetProviderEnabledHandler implements ICommandHandler<SetProviderEnabledCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(ProviderSettingsCache) private readonly cache: ProviderSettingsCache,
  ) {}

  async execute({ organizationId, providerId, enabled, modes }: SetProviderEnabledCommand): Promise<ProviderSettingChanged> {
    if (!isCatalogProvider(providerId)) throw new ValidationFailedError({ provider: `unknown provider "${String(providerId)}"` });
    const now = this.clock.now();
    const id = canonicalProviderId(providerId);
    // Organizations are never deleted: checking before the transaction is as good as inside it.
    if (!(await this.queries.execute(new GetOrganizationProfileQuery(organizationId)))) throw new NotFoundError('organization');
    // Every process drops its cached settings when this commits; the answer waits until the news is out.
    const changed = await this.notifications.broadcast(PROVIDER_SETTINGS_CHANGED, (payload) =>
      this.tx.run(async (m) => {
        for (const mode of modes) await this.repo.upsert(m, organizationId, mode, id, enabled, now);
        await this.notifications.notify(m, PROVIDER_SETTINGS_CHANGED, payload);
        return { organization_id: organizationId, provider_id: id, enabled, modes: [...modes] };
      }),
    );
    this.cache.clear();
    return changed;
  }
}
