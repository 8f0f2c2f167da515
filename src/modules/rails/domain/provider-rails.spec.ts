import { parseChainsConfig } from './chains-config';
import { railedProviders, readyProviders } from './provider-rails';

describe('railedProviders', () => {
  const config = parseChainsConfig({
    live: { ethereum: { rpc_url: 'https://eth.example.com', chain_id: 1 } },
    test: {
      ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, tokens: { usdt: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } },
      polygon: { rpc_url: 'http://127.0.0.1:8546', chain_id: 80002 },
    },
  });

  it("carries each configured network's coin and the tokens with a contract, per mode", () => {
    expect(railedProviders(config, 'live').map((r) => r.providerId)).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_ethereum_usdc']);
    // Test sections name their tokens: USDC has no contract there, so no rail.
    expect(railedProviders(config, 'test').map((r) => r.providerId)).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_polygon_polygon']);
    expect(railedProviders(config, 'test').every((r) => r.family === 'evm')).toBe(true);
  });

  it('carries nothing without CHAINS_FILE or without a section for the mode', () => {
    expect(railedProviders(null, 'live')).toEqual([]);
    expect(railedProviders(parseChainsConfig({ test: { ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337 } } }), 'live')).toEqual([]);
  });

  it('is ready only where the chain family has an active wallet', () => {
    const railed = railedProviders(config, 'live');
    expect(readyProviders(railed, new Set())).toEqual([]);
    expect(readyProviders(railed, new Set(['utxo']))).toEqual([]);
    expect(readyProviders(railed, new Set(['evm']))).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_ethereum_usdc']);
  });
});
