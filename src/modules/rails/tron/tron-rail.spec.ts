import { ChainsConfigError, networkOf, parseChainsConfig as parse } from '../domain/chains-config';
import { tronRail, type TronNetworkConfig } from './tron-rail';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
// The provider catalog's Tron token and a few others (the registry hands the adapter the catalog itself).
const CATALOG = [
  { network: 'TRON', gateway: 'TRON', kind: 'native', contractAddress: '' },
  { network: 'TRON', gateway: 'USDT', kind: 'token', contractAddress: USDT },
  { network: 'ETHEREUM', gateway: 'USDT', kind: 'token', contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
];
const TRON = tronRail(CATALOG);
const parseChainsConfig = (raw: unknown, env: Record<string, string> = {}) => parse(raw, [TRON], env);
const fail = (raw: unknown) => {
  try {
    parseChainsConfig(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ChainsConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe("the Tron rail's CHAINS_FILE section", () => {
  it('fills the defaults: mainnet chain id and USDT live, solidified finality; test tokens only those named', () => {
    const config = parseChainsConfig(
      {
        live: { tron: { rpc_url: 'https://tron.example.com/jsonrpc?key=${TRON_KEY}', http_api_url: 'https://tron.example.com/${TRON_KEY}/' } },
        test: {
          tron: {
            rpc_url: 'http://127.0.0.1:8545',
            chain_id: 3448148188,
            finality: 'confirmations',
            confirmations: 5,
            tokens: { usdt: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' },
          },
        },
      },
      { TRON_KEY: 'secret' },
    );
    const live = networkOf(config, 'live', 'tron') as TronNetworkConfig;
    expect(live).toMatchObject({
      family: 'tron',
      chain: '728126428',
      chainField: 'chain_id',
      finality: 'solidified',
      finalityDepth: 27,
      rpcUrl: 'https://tron.example.com/jsonrpc?key=secret',
    });
    expect(live.assets).toEqual({ usdt: USDT });
    expect(live.providers).toEqual(['prov_tron_tron', 'prov_tron_usdt']);
    expect(live.httpApiUrl).toBe('https://tron.example.com/secret');
    const test = networkOf(config, 'test', 'tron') as TronNetworkConfig;
    expect(test).toMatchObject({ chain: '3448148188', finality: 'confirmations', finalityDepth: 5 });
    expect(test.assets).toEqual({ usdt: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' });
    expect(test.providerOf('usdt')).toBe('prov_tron_usdt');
    // Without the node's HTTP API a TRX transfer cannot be told from a TRC-10 one: TRX is not offered.
    expect(test.httpApiUrl).toBeNull();
    expect(test.providers).toEqual(['prov_tron_usdt']);
  });

  it.each([
    [{ test: { tron: { chain_id: 5 } } }, 'test.tron.rpc_url: must be'],
    [{ test: { tron: { rpc_url: 'http://x' } } }, 'test.tron.chain_id: must be a positive whole number'],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: '0x2b6653dc' } } }, 'test.tron.chain_id: must be a positive whole number'],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: 5, finality: 'final' } } }, 'test.tron.finality: must be "solidified" or "confirmations"'],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: 5, tokens: { usdc: USDT } } } }, 'test.tron.tokens.usdc: unknown token on tron (expected usdt)'],
    [
      { test: { tron: { rpc_url: 'http://x', chain_id: 5, tokens: { usdt: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c' } } } },
      'test.tron.tokens.usdt: must be a base58 Tron contract',
    ],
    [
      { test: { tron: { rpc_url: 'http://x', chain_id: 5, tokens: { usdt: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' } } } },
      'test.tron.tokens.usdt: must be a base58 Tron contract',
    ],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: 5, confirmations: 0 } } }, 'test.tron.confirmations'],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: 5, http_api_url: 'grpc://x:50051' } } }, 'test.tron.http_api_url: must be an http(s):// URL'],
    [{ test: { tron: { rpc_url: 'http://x', chain_id: 5, chain: 'main' } } }, 'test.tron.chain: unknown field'],
    [
      { live: { tron: { rpc_url: 'http://a' } }, test: { tron: { rpc_url: 'http://b', chain_id: 728126428 } } },
      'live.tron.chain_id: 728126428 is also the chain of test.tron',
    ],
  ])('refuses %j naming the field', (raw, message) => {
    expect(fail(raw)).toContain(message);
  });

  it('names an unset environment variable of rpc_url without the URL', () => {
    expect(fail({ test: { tron: { rpc_url: 'http://x/${TRON_NODE_KEY}', chain_id: 5 } } })).toContain(
      'test.tron.rpc_url: environment variable TRON_NODE_KEY is not set',
    );
  });
});

describe('the Tron rail adapter', () => {
  it('routes the catalog providers of Tron, and no other', () => {
    expect(TRON.routeOf('prov_tron_tron')).toEqual({ network: 'tron', asset: null });
    expect(TRON.routeOf('provider_tron_usdt')).toEqual({ network: 'tron', asset: 'usdt' });
    expect(TRON.routeOf('prov_ethereum_usdt')).toBeNull();
    expect(TRON.networks).toEqual(['tron']);
    expect(TRON.walletPerNetwork).toBe(false);
    expect(TRON.defaultChain('live', 'tron')).toBe('728126428');
  });
});
