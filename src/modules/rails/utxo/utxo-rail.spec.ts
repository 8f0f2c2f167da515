import { HDKey } from '@scure/bip32';
import { ChainsConfigError, networkOf, parseChainsConfig } from '../domain/chains-config';
import { UTXO_RAIL } from './utxo-rail';

const parse = (raw: unknown) => parseChainsConfig(raw, [UTXO_RAIL]);
const fail = (raw: unknown) => {
  try {
    parse(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ChainsConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};

describe("the UTXO rail's CHAINS_FILE sections", () => {
  it('takes rpc_url and chain, with the network defaults; live is main', () => {
    const config = parse({
      live: { bitcoin: { rpc_url: 'http://user:pass@btc.example.com:8332' } },
      test: {
        litecoin: { rpc_url: 'http://u:p@127.0.0.1:19443', chain: 'regtest', poll_interval_ms: 200 },
        dogecoin: { rpc_url: 'http://127.0.0.1:1', chain: 'test' },
      },
    });
    expect(networkOf(config, 'live', 'bitcoin')).toMatchObject({
      family: 'utxo',
      chain: 'main',
      finalityDepth: 6,
      providers: ['prov_bitcoin_bitcoin'],
      assets: {},
    });
    expect(networkOf(config, 'test', 'litecoin')).toMatchObject({
      chain: 'regtest',
      finalityDepth: 12,
      pollIntervalMs: 200,
      providers: ['prov_litecoin_litecoin'],
    });
    expect(networkOf(config, 'test', 'litecoin')!.providerOf(null)).toBe('prov_litecoin_litecoin');
    expect(networkOf(config, 'test', 'dogecoin')).toMatchObject({ chain: 'test', finalityDepth: 40 });
  });

  it.each([
    [{ test: { litecoin: { rpc_url: 'http://x' } } }, 'test.litecoin.chain: must be one of main, test, regtest for Litecoin'],
    [{ test: { litecoin: { rpc_url: 'http://x', chain: 'main' } } }, 'test.litecoin.chain: the test section takes test or regtest'],
    [{ test: { litecoin: { rpc_url: 'http://x', chain: 'signet' } } }, 'test.litecoin.chain: must be one of main, test, regtest for Litecoin'],
    [{ test: { bitcoin: { rpc_url: 'http://x', chain: 'main' } } }, 'test.bitcoin.chain: the test section takes test, testnet4, signet or regtest'],
    [{ live: { bitcoin: { rpc_url: 'http://x', chain: 'signet' } } }, 'live.bitcoin.chain: the live section takes main'],
    [{ live: { bitcoin: { rpc_url: 'http://x', chain: 'regtest' } } }, 'live.bitcoin.chain: the live section takes main'],
    [{ test: { bitcoin_cash: { rpc_url: 'http://x', chain: 'test', chain_id: 1 } } }, 'test.bitcoin_cash.chain_id: unknown field'],
    [{ test: { bitcoin: { chain: 'test' } } }, 'test.bitcoin.rpc_url: must be'],
    [{ test: { ethereum: { rpc_url: 'http://x' } } }, 'test.ethereum: unknown network'],
  ])('refuses %j naming the field', (raw, message) => {
    expect(fail(raw)).toContain(message);
  });

  it("takes Bitcoin's public test chains testnet4 and signet in the test section, with testnet keys and tb1 addresses", () => {
    const config = parse({
      test: { bitcoin: { rpc_url: 'http://127.0.0.1:38332', chain: 'signet' } },
    });
    expect(networkOf(config, 'test', 'bitcoin')).toMatchObject({ chain: 'signet', providers: ['prov_bitcoin_bitcoin'] });
    expect(networkOf(parse({ test: { bitcoin: { rpc_url: 'http://127.0.0.1:48332', chain: 'testnet4' } } }), 'test', 'bitcoin')).toMatchObject({
      chain: 'testnet4',
    });
    // One testnet account key (vpub of m/84'/1'/0'): the same tb1q first address on testnet, testnet4 and signet.
    const vpub = HDKey.fromMasterSeed(new Uint8Array(32).fill(7), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
    const firsts = ['test', 'testnet4', 'signet'].map((chain) => {
      const keys = UTXO_RAIL.keys('bitcoin', chain);
      const checked = keys.checkAccountKey(vpub);
      if (!checked.ok) throw new Error(checked.problem);
      return keys.deriveAddress(checked.key.text, 0);
    });
    expect(firsts[0]).toMatch(/^tb1q/);
    expect(new Set(firsts).size).toBe(1);
    // A mainnet key is refused on them, as on testnet.
    const zpub = HDKey.fromMasterSeed(new Uint8Array(32).fill(7), { public: 0x04b24746, private: 0x04b2430c }).derive("m/84'/0'/0'").publicExtendedKey;
    expect(UTXO_RAIL.keys('bitcoin', 'signet').checkAccountKey(zpub).ok).toBe(false);
    expect(() => UTXO_RAIL.keys('litecoin', 'signet')).toThrow('no UTXO network litecoin on chain signet');
  });

  it('routes the catalog providers of its coins, and no other', () => {
    expect(UTXO_RAIL.routeOf('prov_bitcoin_bitcoin')).toEqual({ network: 'bitcoin', asset: null });
    expect(UTXO_RAIL.routeOf('provider_bitcoin_cash_bitcoin_cash')).toEqual({ network: 'bitcoin_cash', asset: null });
    expect(UTXO_RAIL.routeOf('prov_dogecoin_dogecoin')).toEqual({ network: 'dogecoin', asset: null });
    expect(UTXO_RAIL.routeOf('prov_ethereum_ethereum')).toBeNull();
    expect(UTXO_RAIL.walletPerNetwork).toBe(true);
    expect(UTXO_RAIL.defaultChain('live', 'bitcoin')).toBe('main');
    expect(UTXO_RAIL.defaultChain('test', 'bitcoin')).toBe('test');
  });
});
