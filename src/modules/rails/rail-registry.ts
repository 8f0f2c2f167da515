import { Inject, Injectable } from '@nestjs/common';
import { networkOf, type NetworkConfig, type RailMode } from './domain/chains-config';
import type { ChainFamily, ChainFollower, RailAdapter, RailKeys, RailRoute } from './domain/payment-rail';
import { PROVIDER_CATALOG } from '../providers';
import { railAdapters } from './rail-adapters';
import { liveRailsFinding, type LiveRailsFinding, loadRailsConfig, RailsConfig } from './rails.config';

/** The registered adapters, with the provider catalog's token contracts. */
export const RAIL_ADAPTERS: readonly RailAdapter[] = railAdapters(PROVIDER_CATALOG);

/**
 * The start-up check of the rails' settings (read now, as the module will read them): in production,
 * what to say when live mode could take no payment (liveRailsFinding), else null. A bad CHAINS_FILE
 * throws its ConfigError here.
 */
export function checkLiveRails(env: NodeJS.ProcessEnv, production: boolean): LiveRailsFinding | null {
  return liveRailsFinding(loadRailsConfig(env, RAIL_ADAPTERS), production);
}

/** The chain families POST /wallets accepts. */
export const CHAIN_FAMILIES: readonly ChainFamily[] = RAIL_ADAPTERS.map((a) => a.family);

/** The networks POST /wallets takes (those of the families with a wallet per network). */
export const WALLET_NETWORKS: readonly string[] = RAIL_ADAPTERS.filter((a) => a.walletPerNetwork).flatMap((a) => a.networks);

/** The field of POST /wallets that carries a family's key: `xpub` (an account key) or `address` (a wallet registered by address). */
export function walletKeyField(family: string): 'xpub' | 'address' {
  return RAIL_ADAPTERS.find((a) => a.family === family)?.walletField ?? 'xpub';
}

/** A provider's route, with the adapter that serves it. */
export interface AdapterRoute extends RailRoute {
  adapter: RailAdapter;
}

/** The adapters of each chain family (rail-adapters.ts), looked up by family, network or provider. */
@Injectable()
export class RailRegistry {
  private readonly byFamily = new Map<ChainFamily, RailAdapter>(RAIL_ADAPTERS.map((a) => [a.family, a]));
  private readonly byNetwork = new Map<string, RailAdapter>(RAIL_ADAPTERS.flatMap((a) => a.networks.map((n) => [n, a] as const)));

  constructor(@Inject(RailsConfig) private readonly config: RailsConfig) {}

  adapter(family: ChainFamily): RailAdapter {
    const adapter = this.byFamily.get(family);
    if (!adapter) throw new Error(`no rail adapter for the chain family ${family}`);
    return adapter;
  }

  /** The adapter serving a network slug, or undefined. */
  adapterOfNetwork(network: string): RailAdapter | undefined {
    return this.byNetwork.get(network);
  }

  /** Where a provider is paid and by which adapter, or null when no rail carries it. */
  routeOf(providerId: string): AdapterRoute | null {
    for (const adapter of RAIL_ADAPTERS) {
      const route = adapter.routeOf(providerId);
      if (route) return { ...route, adapter };
    }
    return null;
  }

  /**
   * The keys of a wallet: its family's, for its network (null: a family-wide wallet) on the chain
   * CHAINS_FILE names for the network in that mode, else the family's default for the mode.
   */
  keysOf(family: ChainFamily, network: string | null, mode: RailMode): RailKeys {
    const adapter = this.adapter(family);
    const chain =
      network === null ? adapter.defaultChain(mode, '') : (networkOf(this.config.chains, mode, network)?.chain ?? adapter.defaultChain(mode, network));
    return adapter.keys(network, chain);
  }

  /** The keys that write addresses of a network (for display), whatever the wallet. */
  keysOfNetwork(network: string, mode: RailMode): RailKeys {
    const adapter = this.adapterOfNetwork(network);
    if (!adapter) throw new Error(`no rail adapter serves the network ${network}`);
    return this.keysOf(adapter.family, adapter.walletPerNetwork ? network : null, mode);
  }

  /** An address of a network in the form its chain's users see it. */
  displayAddress(network: string, mode: RailMode, address: string): string {
    return this.keysOfNetwork(network, mode).displayAddress(address);
  }

  /** A follower of one network of CHAINS_FILE. */
  followerOf(network: NetworkConfig): ChainFollower {
    return this.adapter(network.family).follower(network);
  }
}
