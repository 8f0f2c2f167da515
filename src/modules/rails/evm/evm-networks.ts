/**
 * The EVM networks this adapter serves and what is paid on them. Keys are the network slugs of the
 * provider ids (`prov_<network>_<gateway>`), gateways the token slugs; `native` is the provider of
 * the network's own coin. Mainnet token contracts are the defaults of the `live` section of
 * CHAINS_FILE (the same contracts the provider catalog shows).
 */
export interface EvmNetwork {
  slug: string;
  /** Provider id of the network's own coin. */
  nativeProvider: string;
  nativeDecimals: number;
  /** Token slug -> mainnet contract. */
  mainnetTokens: Readonly<Record<string, string>>;
  mainnetChainId: number;
}

export const EVM_NETWORKS: Readonly<Record<string, EvmNetwork>> = {
  ethereum: {
    slug: 'ethereum', nativeProvider: 'prov_ethereum_ethereum', nativeDecimals: 18, mainnetChainId: 1,
    mainnetTokens: { usdt: '0xdAC17F958D2ee523a2206206994597C13D831ec7', usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  },
  polygon: {
    slug: 'polygon', nativeProvider: 'prov_polygon_polygon', nativeDecimals: 18, mainnetChainId: 137,
    mainnetTokens: { usdc_native: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
  },
  bsc: { slug: 'bsc', nativeProvider: 'prov_bsc_binance_coin', nativeDecimals: 18, mainnetChainId: 56, mainnetTokens: {} },
};

/** Where a provider id lands on the EVM rail: its network and token (null = the network's coin). */
export interface EvmRoute {
  network: string;
  token: string | null;
}

/** The EVM network and token slug of a provider id (`prov_` or `provider_` spelling), or null when it is not paid on an EVM chain. */
export function evmRouteOf(providerId: string): EvmRoute | null {
  const id = providerId.toLowerCase().replace(/^provider_/, 'prov_');
  for (const network of Object.values(EVM_NETWORKS)) {
    if (id === network.nativeProvider) return { network: network.slug, token: null };
    for (const token of Object.keys(network.mainnetTokens)) {
      if (id === `prov_${network.slug}_${token}`) return { network: network.slug, token };
    }
  }
  return null;
}

/** Provider id of a token slug on a network, or of the network's coin (token null). */
export function providerIdOf(network: string, token: string | null): string {
  return token === null ? EVM_NETWORKS[network].nativeProvider : `prov_${network}_${token}`;
}
