/**
 * The UTXO networks this adapter serves (the network slugs of the provider ids), and each one's
 * parameters on its chains (`main`, `test`, `regtest`, and for Bitcoin the public test chains `testnet4` and
 * `signet`, as a Bitcoin Core-compatible node's getblockchaininfo names them): address versions, the bech32 prefix where the coin has segwit, the
 * cashaddr prefix for Bitcoin Cash, the BIP21 URI scheme, and the extended key versions its wallets export.
 */
export type UtxoChain = 'main' | 'test' | 'testnet4' | 'signet' | 'regtest';
export const UTXO_CHAINS: readonly UtxoChain[] = ['main', 'test', 'testnet4', 'signet', 'regtest'];
/** The chains every coin has; `testnet4` and `signet` are Bitcoin's alone. */
type EveryCoinChain = 'main' | 'test' | 'regtest';

/** The address a key's receive chain gives: P2PKH, P2WPKH, or P2WPKH inside P2SH. */
export type AddressType = 'p2pkh' | 'p2wpkh' | 'p2sh-p2wpkh';

export interface ChainParams {
  pubKeyHash: number;
  scriptHash: number;
  /** bech32 human-readable part, or null on a coin without segwit. */
  bech32: string | null;
  /** cashaddr prefix (Bitcoin Cash), or null. */
  cashaddr: string | null;
  /** A script-hash version the coin used before its own, still found in payers' wallets (Litecoin's `3...`), taken as a payout address. */
  oldScriptHash?: number;
}

/** An extended key version: what it is (public or private), the address type it stands for, its network kind. */
export interface KeyVersion {
  name: string;
  version: number;
  private: boolean;
  type: AddressType;
  /** Mainnet keys, or testnet keys (also used on regtest). */
  net: 'main' | 'test';
}

export interface UtxoNetwork {
  slug: string;
  /** The coin's name, for messages. */
  name: string;
  /** The provider id of the coin. */
  provider: string;
  /** BIP21 URI scheme. */
  scheme: string;
  chains: Readonly<Record<EveryCoinChain, ChainParams> & Partial<Record<UtxoChain, ChainParams>>>;
  /** The public key versions its wallets export (private ones are recognized only to be refused). */
  keyVersions: readonly KeyVersion[];
  /** Blocks the watcher keeps checking for reorgs by default. */
  finalityDepth: number;
  pollIntervalMs: number;
}

const v = (name: string, version: number, type: AddressType, net: 'main' | 'test', priv = false): KeyVersion => ({ name, version, private: priv, type, net });

/** SLIP-132 versions shared by the Bitcoin family: xpub/ypub/zpub (main), tpub/upub/vpub (test), and their private forms. */
const BITCOIN_KEYS = [
  v('xpub', 0x0488b21e, 'p2pkh', 'main'),
  v('ypub', 0x049d7cb2, 'p2sh-p2wpkh', 'main'),
  v('zpub', 0x04b24746, 'p2wpkh', 'main'),
  v('tpub', 0x043587cf, 'p2pkh', 'test'),
  v('upub', 0x044a5262, 'p2sh-p2wpkh', 'test'),
  v('vpub', 0x045f1cf6, 'p2wpkh', 'test'),
  v('xprv', 0x0488ade4, 'p2pkh', 'main', true),
  v('yprv', 0x049d7878, 'p2sh-p2wpkh', 'main', true),
  v('zprv', 0x04b2430c, 'p2wpkh', 'main', true),
  v('tprv', 0x04358394, 'p2pkh', 'test', true),
  v('uprv', 0x044a4e28, 'p2sh-p2wpkh', 'test', true),
  v('vprv', 0x045f18bc, 'p2wpkh', 'test', true),
];
const LITECOIN_KEYS = [
  v('Ltub', 0x019da462, 'p2pkh', 'main'),
  v('Mtub', 0x01b26ef6, 'p2sh-p2wpkh', 'main'),
  v('ttub', 0x0436f6e1, 'p2pkh', 'test'),
  v('Ltpv', 0x019d9cfe, 'p2pkh', 'main', true),
  v('Mtpv', 0x01b26792, 'p2sh-p2wpkh', 'main', true),
  v('ttpv', 0x0436ef7d, 'p2pkh', 'test', true),
];
// Dogecoin Core's mainnet versions; its testnet and regtest use tpub/tprv.
const DOGECOIN_KEYS = [v('dgub', 0x02facafd, 'p2pkh', 'main'), v('dgpv', 0x02fac398, 'p2pkh', 'main', true)];
const P2PKH_ONLY = BITCOIN_KEYS.filter((k) => k.type === 'p2pkh');

export const UTXO_NETWORKS: Readonly<Record<string, UtxoNetwork>> = {
  bitcoin: {
    slug: 'bitcoin',
    name: 'Bitcoin',
    provider: 'prov_bitcoin_bitcoin',
    scheme: 'bitcoin',
    chains: {
      main: { pubKeyHash: 0x00, scriptHash: 0x05, bech32: 'bc', cashaddr: null },
      test: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'tb', cashaddr: null },
      regtest: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'bcrt', cashaddr: null },
      // The public test chains take the testnet versions and the `tb` prefix, as testnet does.
      testnet4: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'tb', cashaddr: null },
      signet: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: 'tb', cashaddr: null },
    },
    keyVersions: BITCOIN_KEYS,
    finalityDepth: 6,
    pollIntervalMs: 10_000,
  },
  litecoin: {
    slug: 'litecoin',
    name: 'Litecoin',
    provider: 'prov_litecoin_litecoin',
    scheme: 'litecoin',
    chains: {
      main: { pubKeyHash: 0x30, scriptHash: 0x32, bech32: 'ltc', cashaddr: null, oldScriptHash: 0x05 },
      test: { pubKeyHash: 0x6f, scriptHash: 0x3a, bech32: 'tltc', cashaddr: null, oldScriptHash: 0xc4 },
      regtest: { pubKeyHash: 0x6f, scriptHash: 0x3a, bech32: 'rltc', cashaddr: null, oldScriptHash: 0xc4 },
    },
    // Litecoin wallets export Ltub/Mtub (Litecoin Core and Electrum-LTC), or the Bitcoin versions (Trezor, Ledger: xpub, zpub...).
    keyVersions: [...LITECOIN_KEYS, ...BITCOIN_KEYS],
    finalityDepth: 12,
    pollIntervalMs: 5000,
  },
  dogecoin: {
    slug: 'dogecoin',
    name: 'Dogecoin',
    provider: 'prov_dogecoin_dogecoin',
    scheme: 'dogecoin',
    chains: {
      main: { pubKeyHash: 0x1e, scriptHash: 0x16, bech32: null, cashaddr: null },
      test: { pubKeyHash: 0x71, scriptHash: 0xc4, bech32: null, cashaddr: null },
      regtest: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: null, cashaddr: null },
    },
    keyVersions: [...DOGECOIN_KEYS, ...P2PKH_ONLY],
    finalityDepth: 40,
    pollIntervalMs: 5000,
  },
  bitcoin_cash: {
    slug: 'bitcoin_cash',
    name: 'Bitcoin Cash',
    provider: 'prov_bitcoin_cash_bitcoin_cash',
    scheme: 'bitcoincash',
    chains: {
      main: { pubKeyHash: 0x00, scriptHash: 0x05, bech32: null, cashaddr: 'bitcoincash' },
      test: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: null, cashaddr: 'bchtest' },
      regtest: { pubKeyHash: 0x6f, scriptHash: 0xc4, bech32: null, cashaddr: 'bchreg' },
    },
    keyVersions: P2PKH_ONLY,
    finalityDepth: 10,
    pollIntervalMs: 10_000,
  },
};

/** Every key version any UTXO coin uses, for naming the coin of a key given for another. */
export const ALL_KEY_VERSIONS: ReadonlyMap<number, { key: KeyVersion; coins: string[] }> = (() => {
  const all = new Map<number, { key: KeyVersion; coins: string[] }>();
  for (const network of Object.values(UTXO_NETWORKS)) {
    for (const key of network.keyVersions) {
      const entry = all.get(key.version) ?? { key, coins: [] };
      entry.coins.push(network.name);
      all.set(key.version, entry);
    }
  }
  return all;
})();

/** The kind of key a chain takes: mainnet keys on `main`, testnet keys on every test chain. */
export const keyNetOf = (chain: UtxoChain): 'main' | 'test' => (chain === 'main' ? 'main' : 'test');

/** The chains a network has, in the order UTXO_CHAINS names them. */
export const chainsOf = (network: UtxoNetwork): UtxoChain[] => UTXO_CHAINS.filter((chain) => network.chains[chain] !== undefined);
