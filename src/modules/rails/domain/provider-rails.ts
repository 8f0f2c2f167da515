import { EVM_NETWORKS, providerIdOf } from '../evm/evm-networks';
import type { ChainsConfig, RailMode } from './chains-config';
import type { ChainFamily } from './payment-rail';

/** A provider a configured rail carries, and the chain family whose receiving wallet it needs. */
export interface RailedProvider {
  providerId: string;
  family: ChainFamily;
}

/** The chain family of a configured network (every network CHAINS_FILE accepts today is EVM). */
function familyOf(network: string): ChainFamily | null {
  return EVM_NETWORKS[network] ? 'evm' : null;
}

/**
 * The providers the configured rails of one mode carry: each network's own coin, and each token whose
 * contract the network's section holds (in live mode the mainnet contracts unless overridden; in test
 * mode only the tokens named). Pure: the same configuration always gives the same list.
 */
export function railedProviders(config: ChainsConfig | null, mode: RailMode): RailedProvider[] {
  const out: RailedProvider[] = [];
  for (const network of config?.networks ?? []) {
    if (network.mode !== mode) continue;
    const family = familyOf(network.network);
    if (!family) continue;
    out.push({ providerId: providerIdOf(network.network, null), family });
    for (const token of Object.keys(network.tokens)) out.push({ providerId: providerIdOf(network.network, token), family });
  }
  return out;
}

/** Of the railed providers, those whose chain family has an active receiving wallet. */
export function readyProviders(railed: readonly RailedProvider[], activeFamilies: ReadonlySet<string>): string[] {
  return railed.filter((r) => activeFamilies.has(r.family)).map((r) => r.providerId);
}
