import { ChainsConfigError, networkOf, parseChainsConfig as parse } from '../domain/chains-config';
import { evmRail } from './evm-rail';

// The provider catalog's EVM tokens (the registry hands the adapter the catalog itself).
const CATALOG = [
  { network: 'ETHEREUM', gateway: 'USDT', kind: 'token', contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
  { network: 'ETHEREUM', gateway: 'USDC', kind: 'token', contractAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  { network: 'POLYGON', gateway: 'USDC_NATIVE', kind: 'token', contractAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
  { network: 'TRON', gateway: 'USDT', kind: 'token', contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
  { network: 'BITCOIN', gateway: 'BITCOIN', kind: 'native', contractAddress: '' },
];
const EVM = evmRail(CATALOG);
const parseChainsConfig = (raw: unknown) => parse(raw, [EVM]);

const fail = (raw: unknown) => {
  try {
    parseChainsConfig(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ChainsConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe("the EVM rail's CHAINS_FILE sections", () => {
  it('fills the defaults: live tokens are the mainnet contracts, test tokens only those given', () => {
    const config = parseChainsConfig({
      live: { ethereum: { rpc_url: 'https://eth.example.com', chain_id: 1, confirmations: 12 } },
      test: {
        ethereum: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, tokens: { usdt: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }, poll_interval_ms: 100 },
      },
    });
    const live = networkOf(config, 'live', 'ethereum')!;
    expect(live.assets).toEqual({ usdt: '0xdac17f958d2ee523a2206206994597c13d831ec7', usdc: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' });
    expect(live).toMatchObject({ finalityDepth: 12, pollIntervalMs: 4000, maxBlockRange: 500, startBlock: null });
    const test = networkOf(config, 'test', 'ethereum')!;
    expect(test.assets).toEqual({ usdt: '0x5fbdb2315678afecb367f032d93f642f64180aa3' });
    expect(test).toMatchObject({ family: 'evm', chain: '31337', finalityDepth: 64, pollIntervalMs: 100 });
    expect(live.providers).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt', 'prov_ethereum_usdc']);
    expect(test.providers).toEqual(['prov_ethereum_ethereum', 'prov_ethereum_usdt']);
    expect(networkOf(config, 'test', 'polygon')).toBeUndefined();
    expect(networkOf(null, 'test', 'ethereum')).toBeUndefined();
  });

  it.each([
    [[], 'live" and/or "test'],
    [{ main: {} }, 'main: unknown section'],
    [{ test: { solana: {} } }, 'test.solana: unknown network'],
    [{ test: { ethereum: { chain_id: 5 } } }, 'test.ethereum.rpc_url: must be'],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: '5' } } }, 'test.ethereum.chain_id: must be a positive whole number'],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: 5, tokens: { dai: '0x' + '1'.repeat(40) } } } }, 'test.ethereum.tokens.dai: unknown token'],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: 5, tokens: { usdt: '0x12' } } } }, 'test.ethereum.tokens.usdt: must be a contract address'],
    [{ test: { bsc: { rpc_url: 'http://x', chain_id: 97, tokens: { usdt: '0x' + '1'.repeat(40) } } } }, "only the network's coin"],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: 5, confirmations: 0 } } }, 'test.ethereum.confirmations'],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: 5, max_block_range: 0 } } }, 'test.ethereum.max_block_range'],
    [{ test: { ethereum: { rpc_url: 'http://x', chain_id: 5, rpc: 'x' } } }, 'test.ethereum.rpc: unknown field'],
  ])('refuses %j naming the field', (raw, message) => {
    expect(fail(raw)).toContain(message);
  });

  it.each([
    [
      { live: { ethereum: { rpc_url: 'http://a', chain_id: 31337 } }, test: { ethereum: { rpc_url: 'http://b', chain_id: 31337 } } },
      'live.ethereum.chain_id: 31337 is also the chain of test.ethereum',
    ],
    // The same chain under another network's name is the same chain.
    [
      { live: { polygon: { rpc_url: 'http://a', chain_id: 80002 } }, test: { ethereum: { rpc_url: 'http://b', chain_id: 80002 } } },
      'live.polygon.chain_id: 80002 is also the chain of test.ethereum',
    ],
  ])('refuses live and test sections naming the same chain: %j', (raw, message) => {
    expect(fail(raw)).toContain(message);
  });

  it('takes the same chain twice within one section, and different chains across the sections', () => {
    const config = parseChainsConfig({
      live: { ethereum: { rpc_url: 'http://a', chain_id: 1 } },
      test: { ethereum: { rpc_url: 'http://b', chain_id: 31337 }, polygon: { rpc_url: 'http://b', chain_id: 31337 } },
    });
    expect(config.networks.map((n) => `${n.mode}.${n.network}:${n.chain}`)).toEqual(['live.ethereum:1', 'test.ethereum:31337', 'test.polygon:31337']);
  });
});

describe('the EVM rail adapter', () => {
  it('routes the catalog providers of its networks, and no other', () => {
    expect(EVM.routeOf('prov_ethereum_usdt')).toEqual({ network: 'ethereum', asset: 'usdt' });
    expect(EVM.routeOf('provider_polygon_usdc_native')).toEqual({ network: 'polygon', asset: 'usdc_native' });
    expect(EVM.routeOf('prov_bsc_binance_coin')).toEqual({ network: 'bsc', asset: null });
    expect(EVM.routeOf('prov_tron_usdt')).toBeNull();
    expect(EVM.routeOf('prov_bitcoin_bitcoin')).toBeNull();
    expect(EVM.networks).toEqual(['ethereum', 'polygon', 'bsc']);
    expect(EVM.walletPerNetwork).toBe(false);
  });
});
