import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ListProviderRailsQuery, ProviderRails } from '../../../providers';
import { RailedProvider, railedProviders, readyProviders } from '../../domain/provider-rails';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { RAIL_ADAPTERS } from '../../rail-registry';
import { RailsConfig } from '../../rails.config';

/**
 * Answers the providers module's ListProviderRailsQuery: the providers the configured rails of the
 * mode carry (worked out once per process from CHAINS_FILE, which is read at start) whose wallet
 * slot (the chain family, or its network for a wallet per network) has an active receiving wallet in the organization (one indexed read, skipped when the mode
 * has no rail).
 */
@QueryHandler(ListProviderRailsQuery)
export class ListProviderRailsHandler implements IQueryHandler<ListProviderRailsQuery> {
  private readonly railed: Readonly<Record<Mode, readonly RailedProvider[]>>;

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(RailsConfig) config: RailsConfig,
  ) {
    const perNetwork = new Set(RAIL_ADAPTERS.filter((a) => a.walletPerNetwork).map((a) => a.family));
    this.railed = { live: railedProviders(config.chains, 'live', perNetwork), test: railedProviders(config.chains, 'test', perNetwork) };
  }

  async execute({ scope }: ListProviderRailsQuery): Promise<ProviderRails> {
    const railed = this.railed[scope.mode];
    if (!railed.length) return { ready: [] };
    const slots = new Set<string>(await this.wallets.activeSlots(this.tx.readsFor(scope), scope));
    return { ready: readyProviders(railed, slots) };
  }
}
