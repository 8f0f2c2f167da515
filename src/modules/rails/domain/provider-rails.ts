import type { ChainsConfig, RailMode } from './chains-config';
import type { ChainFamily } from './payment-rail';

/** A provider a configured rail carries, and the receiving wallet it needs (its family, and its network where a wallet serves one network). */
export interface RailedProvider {
  providerId: string;
  family: ChainFamily;
  /** The wallet slot that must be active: the family, or `<family>:<network>` for a wallet per network. */
  wallet: string;
}

/**
 * The providers the configured rails of one mode carry: each network's own coin, and each asset its
 * section configures. `perNetwork` names the families whose wallets serve one network each. Pure: the
 * same configuration always gives the same list.
 */
export function railedProviders(config: ChainsConfig | null, mode: RailMode, perNetwork: ReadonlySet<ChainFamily> = new Set()): RailedProvider[] {
  const out: RailedProvider[] = [];
  for (const network of config?.networks ?? []) {
    if (network.mode !== mode) continue;
    const wallet = walletSlot(network.family, perNetwork.has(network.family) ? network.network : null);
    for (const providerId of network.providers) out.push({ providerId, family: network.family, wallet });
  }
  return out;
}

/** The name of a wallet slot: one active wallet per organization, mode and slot. */
export function walletSlot(family: ChainFamily, network: string | null): string {
  return network === null ? family : `${family}:${network}`;
}

/** Of the railed providers, those whose wallet slot has an active receiving wallet. */
export function readyProviders(railed: readonly RailedProvider[], activeSlots: ReadonlySet<string>): string[] {
  return railed.filter((r) => activeSlots.has(r.wallet)).map((r) => r.providerId);
}
