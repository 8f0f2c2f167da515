import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';
import { findCatalogProvider } from '../../../providers';
import type { NetworkConfig } from '../../domain/chains-config';
import { confirmationsCheck, liveNetworksCheck, safeErrorText } from '../../domain/preflight';
import { WalletsRepository, type WalletRow } from '../../persistence/wallets.repository';
import { RailRegistry } from '../../rail-registry';
import { RailsConfig } from '../../rails.config';
import { RailsPreflightQuery } from './rails-preflight.query';

@QueryHandler(RailsPreflightQuery)
export class RailsPreflightHandler implements IQueryHandler<RailsPreflightQuery> {
  constructor(
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(RailRegistry) private readonly registry: RailRegistry,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
  ) {}

  async execute({ production, now, timeoutMs, wallets }: RailsPreflightQuery): Promise<PreflightCheck[]> {
    const networks = this.config.chains?.networks ?? [];
    const perNetwork = await Promise.all(networks.map((n) => this.networkChecks(n, now, timeoutMs)));
    return [liveNetworksCheck(this.config.liveNetworks, production), ...perNetwork.flat(), ...(wallets ? await this.walletChecks() : [])];
  }

  /** The family's node checks (through its adapter), then the confirmations settings every family has. */
  private async networkChecks(network: NetworkConfig, now: Date, timeoutMs: number): Promise<PreflightCheck[]> {
    const adapter = this.registry.adapter(network.family);
    const required = findCatalogProvider(network.providerOf(null))?.requiredConfirmations ?? null;
    let node: PreflightCheck[];
    try {
      node = await adapter.preflight(network, { now, timeoutMs });
    } catch (e) {
      node = [{ name: `chain.${network.mode}.${network.network}.node`, status: 'fail', detail: `the check of the node failed: ${safeErrorText(e)}` }];
    }
    return [...node, confirmationsCheck(network, required)];
  }

  /**
   * Each active wallet's first receive address (index 0 of its key's receive chain), derived again from
   * the stored key: the address the merchant's wallet shows first for that account, and the first one the
   * API hands out for a key registered fresh.
   */
  private async walletChecks(): Promise<PreflightCheck[]> {
    let rows: WalletRow[];
    try {
      rows = await this.wallets.activeOfEveryOrganization(this.tx.manager);
    } catch (e) {
      // A key sealed with a SECRETS_KEY no longer given (neither SECRETS_KEY nor SECRETS_KEYS_OLD) cannot be opened.
      return [{ name: 'wallets', status: 'fail', detail: `the wallets could not be read (${safeErrorText(e)}): check SECRETS_KEY and SECRETS_KEYS_OLD` }];
    }
    return rows.map((row) => this.walletCheck(row));
  }

  private walletCheck(row: WalletRow): PreflightCheck {
    const where = row.network ?? row.chain_family;
    const name = `wallet.${row.organization_id}.${row.mode}.${where}`;
    const facts = { organization_id: row.organization_id, wallet_id: row.id, mode: row.mode, chain_family: row.chain_family, network: row.network };
    const served = (this.config.chains?.networks ?? []).some(
      (n) => n.mode === row.mode && n.family === row.chain_family && (row.network === null || n.network === row.network),
    );
    if (!served) {
      return {
        name,
        status: 'warn',
        detail: `${row.mode} ${where} wallet ${row.id}: CHAINS_FILE's ${row.mode} section names no network it receives on, so nothing is paid to it; add the network, or delete the wallet`,
        first_address: row.first_address,
        ...facts,
      };
    }
    let first: string;
    try {
      const keys = this.registry.keysOf(row.chain_family, row.network, row.mode);
      first = keys.displayAddress(keys.deriveAddress(row.xpub, 0));
    } catch (e) {
      return { name, status: 'fail', detail: `the wallet's key no longer derives addresses (${safeErrorText(e)}): register it again`, ...facts };
    }
    if (first !== row.first_address) {
      return {
        name,
        status: 'fail',
        detail: `the key now derives ${first} first, but ${row.first_address} was shown when it was registered: compare both with your wallet, and register the key again`,
        first_address: first,
        ...facts,
      };
    }
    return {
      name,
      status: 'ok',
      detail: `${row.mode} ${where} wallet ${row.id}: first receive address ${first}; check that your wallet shows this address first for the account`,
      first_address: first,
      ...facts,
    };
  }
}
