import type { ChainsConfig, NetworkConfig } from './chains-config';
import { railedProviders, readyProviders } from './provider-rails';

const network = (mode: 'live' | 'test', family: string, slug: string, providers: string[]): NetworkConfig => ({
  mode,
  network: slug,
  family,
  rpcUrl: 'http://127.0.0.1:1',
  chain: '1',
  chainField: 'chain',
  finalityDepth: 6,
  assets: {},
  providers,
  providerOf: () => providers[0],
  pollIntervalMs: 1000,
  maxBlockRange: 10,
  startBlock: null,
});

describe('railedProviders', () => {
  const config: ChainsConfig = {
    networks: [
      network('live', 'evm', 'ethereum', ['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_ethereum_usdc']),
      network('test', 'evm', 'ethereum', ['prov_ethereum_ethereum', 'prov_ethereum_usdt']),
      network('test', 'evm', 'polygon', ['prov_polygon_polygon']),
      network('test', 'utxo', 'litecoin', ['prov_litecoin_litecoin']),
    ],
  };
  const perNetwork = new Set(['utxo']);

  it("carries each configured network's providers, per mode", () => {
    expect(railedProviders(config, 'live', perNetwork).map((r) => r.providerId)).toEqual([
      'prov_ethereum_ethereum',
      'prov_ethereum_usdt',
      'prov_ethereum_usdc',
    ]);
    expect(railedProviders(config, 'test', perNetwork).map((r) => `${r.providerId}@${r.wallet}`)).toEqual([
      'prov_ethereum_ethereum@evm',
      'prov_ethereum_usdt@evm',
      'prov_polygon_polygon@evm',
      'prov_litecoin_litecoin@utxo:litecoin',
    ]);
  });

  it('carries nothing without CHAINS_FILE or without a section for the mode', () => {
    expect(railedProviders(null, 'live')).toEqual([]);
    expect(railedProviders({ networks: config.networks.filter((n) => n.mode === 'test') }, 'live')).toEqual([]);
  });

  it("is ready only where the provider's wallet slot has an active wallet", () => {
    const railed = railedProviders(config, 'test', perNetwork);
    expect(readyProviders(railed, new Set())).toEqual([]);
    expect(readyProviders(railed, new Set(['utxo:bitcoin']))).toEqual([]);
    expect(readyProviders(railed, new Set(['utxo:litecoin']))).toEqual(['prov_litecoin_litecoin']);
    expect(readyProviders(railed, new Set(['evm']))).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_polygon_polygon']);
  });
});
