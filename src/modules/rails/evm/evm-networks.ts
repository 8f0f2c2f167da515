/**
 * The EVM networks this adapter serves and what is paid on them. Keys are the network slugs of the
 * provider ids (`prov_<network>_<gateway>`), gateways the token slugs; the network's own coin has its
 * provider too. The token contracts come from the provider catalog (its one list of mainnet
 * contracts), handed in by the registry: they are the defaults of the `live` section of CHAINS_FILE.
 */
export interface EvmNetwork {
  slug: string;
  /** Provider id of the network's own coin. */
  nativeProvider: string;
  /** Token slug -> mainnet contract, from the catalog. */
  mainnetTokens: Readonly<Record<string, string>>;
  mainnetChainId: number;
}

/** The part of a catalog entry the adapter reads (the providers module's CatalogProvider). */
export interface CatalogToken {
  network: string;
  gateway: string;
  kind: string;
  contractAddress: string;
}

export type EvmNetworks = Readonly<Record<string, EvmNetwork>>;

/** The networks, with the catalog's tokens on each. */
export function evmNetworks(catalog: readonly CatalogToken[]): EvmNetworks {
  const network = (slug: string, nativeGateway: string, mainnetChainId: number): EvmNetwork => {
    const mainnetTokens: Record<string, string> = {};
    for (const p of catalog) if (p.network === slug.toUpperCase() && p.kind === 'token') mainnetTokens[p.gateway.toLowerCase()] = p.contractAddress;
    return { slug, nativeProvider: `prov_${slug}_${nativeGateway}`, mainnetChainId, mainnetTokens };
  };
  return { ethereum: network('ethereum', 'ethereum', 1), polygon: network('polygon', 'polygon', 137), bsc: network('bsc', 'binance_coin', 56) };
}

export const DEFAULT_FINALITY_DEPTH: Readonly<Record<string, number>> = { ethereum: 64, polygon: 256, bsc: 64 };

/** Where a provider id lands on the EVM rail: its network and token (null = the network's coin). */
export interface EvmRoute {
  network: string;
  token: string | null;
}

/** The EVM network and token slug of a provider id (`prov_` or `provider_` spelling), or null when it is not paid on an EVM chain. */
export function evmRouteOf(networks: EvmNetworks, providerId: string): EvmRoute | null {
  const id = providerId.toLowerCase().replace(/^provider_/, 'prov_');
  for (const network of Object.values(networks)) {
    if (id === network.nativeProvider) return { network: network.slug, token: null };
    for (const token of Object.keys(network.mainnetTokens)) {
      if (id === `prov_${network.slug}_${token}`) return { network: network.slug, token };
    }
  }
  return null;
}

/** Provider id of a token slug on a network, or of the network's coin (token null). */
export function providerIdOf(networks: EvmNetworks, network: string, token: string | null): string {
  return token === null ? networks[network].nativeProvider : `prov_${network}_${token}`;
}
