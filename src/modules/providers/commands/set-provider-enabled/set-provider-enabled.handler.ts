import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { canonicalProviderId, isCatalogProvider } from '../../domain/catalog';
import { ProvidersRepository } from '../../persistence/providers.repository';
import { ProviderSettingChanged, SetProviderEnabledCommand } from './set-provider-enabled.command';

@CommandHandler(SetProviderEnabledCommand)
export class SetProviderEnabledHandler implements ICommandHandler<SetProviderEnabledCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(ProvidersRepository) private readonly repo: ProvidersRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ organizationId, providerId, enabled, modes }: SetProviderEnabledCommand): Promise<ProviderSettingChanged> {
    if (!isCatalogProvider(providerId)) throw new ValidationFailedError({ provider: `unknown provider "${providerId}"` });
    const now = this.clock.now();
    const id = canonicalProviderId(providerId);
    return this.tx.run(async (m) => {
      if (!(await this.repo.organizationCreatedAt(m, organizationId))) throw new NotFoundError('organization');
      for (const mode of modes) await this.repo.upsert(m, organizationId, mode, id, enabled, now);
      return { organization_id: organizationId, provider_id: id, enabled, modes: [...modes] };
    });
  }
}
