import { createHash } from 'node:crypto';
import { base58check as base58checkWith } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { p2pkh, p2sh, p2wpkh } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';
import { cashaddrEncode } from './cashaddr';
import { checkDescriptorChecksum } from './descriptor-checksum';
import { ALL_KEY_VERSIONS, type AddressType, type ChainParams, keyNetOf, type KeyVersion, type UtxoChain, type UtxoNetwork } from './utxo-networks';

/** Depth of an account-level key (m/84'/0'/0', m/44'/2'/0'...), as wallets export it. */
const ACCOUNT_DEPTH = 3;
/** Receive chain under the account (m/.../0/i); change (1) is never handed out. */
const RECEIVE_CHAIN = 0;
const MAX_INDEX = 0x7fffffff;
/** A coin has 8 decimals on every UTXO chain served here. */
const COIN_DECIMALS = 8;

const base58check = base58checkWith((data) => new Uint8Array(createHash('sha256').update(data).digest()));
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const WORDS = /^[a-z]+(\s+[a-z]+){11,23}$/i;
const PRIVATE_PREFIX = /^(xprv|yprv|zprv|tprv|uprv|vprv|Yprv|Zprv|Uprv|Vprv|Ltpv|Mtpv|ttpv|dgpv)/;
/** WIF private key versions (Bitcoin main/test, Litecoin, Dogecoin main/test). */
const WIF_VERSIONS = new Set([0x80, 0xef, 0xb0, 0x9e, 0xf1]);
const KEY_TEXT = '[1-9A-HJ-NP-Za-km-z]{100,120}';
/** `[fingerprint/84h/0h/0h]` key origin, then the key, then the receive chain (`/0/*`, or `/<0;1>/*`), each optional. */
const DESCRIPTOR_KEY = new RegExp(`^(?:\\[([0-9a-fA-F]{8})((?:/\\d+['hH]?)*)\\])?(${KEY_TEXT})((?:/[^)]*)?)$`);
const DESCRIPTOR = /^(wpkh|pkh|sh)\((.*)\)$/;
const NEVER_PRIVATE = 'must be an extended public key (xpub...), never a private key; nothing was stored';
const DESCRIPTOR_TYPES = 'must be a wpkh(...), pkh(...) or sh(wpkh(...)) output descriptor, or an extended public key';
const WRONG_CHECKSUM =
  'is a descriptor that no longer matches its checksum (after #): it was changed after the wallet wrote it (its script type, derivation path or a character); copy it again from the wallet; nothing was stored';
const MALFORMED_CHECKSUM = 'is a descriptor whose checksum (after #) is not 8 characters of qpzry9x8gf2tvdw0s3jn54khce6mua7l; nothing was stored';

/** A key that passed the checks: the BIP32 key and the address type it gives. */
interface ParsedKey {
  key: HDKey;
  type: AddressType;
}

type Parse = { ok: true; parsed: ParsedKey } | { ok: false; problem: string };

/**
 * Watch-only keys of one UTXO coin on one chain (Bitcoin, Litecoin, Dogecoin or Bitcoin Cash; main,
 * test or regtest): account-level extended public keys in the versions its wallets export (the version
 * decides the address type: P2WPKH for zpub/vpub, P2WPKH in P2SH for ypub/upub/Mtub, P2PKH otherwise,
 * written as CashAddr on Bitcoin Cash), and output descriptors (`wpkh(...)`, `pkh(...)`,
 * `sh(wpkh(...))`, with or without key origin, `/0/*` and `#checksum`), which name the type. A new key's
 * descriptor checksum, when it has one, must match (BIP-380); a stored key is not checked again. The keys come from
 * @scure/bip32 and the addresses from @scure/btc-signer; nothing here does key arithmetic. Messages
 * never quote the key.
 */
export class UtxoKeys implements RailKeys {
  private readonly params: ChainParams;

  constructor(
    private readonly network: UtxoNetwork,
    private readonly chain: UtxoChain,
  ) {
    const params = network.chains[chain];
    if (!params) throw new Error(`${network.name} has no ${chain} chain`);
    this.params = params;
  }

  checkAccountKey(text: string): AccountKeyCheck {
    const value = text.trim();
    const parse = this.parse(value, true);
    if (!parse.ok) return parse;
    const fingerprint = this.fingerprintOf(parse.parsed.key);
    return { ok: true, key: { text: value, firstAddress: this.addressOf(parse.parsed, 0), fingerprint } };
  }

  fingerprint(accountKey: string): string {
    return this.fingerprintOf(this.parsed(accountKey).key);
  }

  deriveAddress(accountKey: string, index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`address index out of range: ${index}`);
    return this.addressOf(this.parsed(accountKey), index);
  }

  displayAddress(address: string): string {
    return address;
  }

  /** BIP21: `<scheme>:<address>?amount=<coin>`; a CashAddr already carries its scheme as its prefix. */
  paymentUri({ address, units }: PaymentRequest): string {
    const target = address.includes(':') ? address : `${this.network.scheme}:${address}`;
    return `${target}?amount=${coinAmount(units)}`;
  }

  private parsed(accountKey: string): ParsedKey {
    const parse = this.parse(accountKey.trim(), false);
    if (!parse.ok) throw new Error(`stored account key no longer passes its checks: ${parse.problem}`);
    return parse.parsed;
  }

  /** SHA-256 of the family, the compressed public key and the chain code (as the EVM rail does): one counter per key. */
  private fingerprintOf(key: HDKey): string {
    if (!key.publicKey || !key.chainCode) throw new Error('account key has no public key or chain code');
    return createHash('sha256').update('utxo\n').update(key.publicKey).update(key.chainCode).digest('hex');
  }

  /** `verifyChecksum`: a descriptor's checksum must match (a new key; stored keys were taken before it was checked). */
  private parse(value: string, verifyChecksum: boolean): Parse {
    if (HEX_KEY.test(value) || PRIVATE_PREFIX.test(value)) return { ok: false, problem: NEVER_PRIVATE };
    if (WORDS.test(value)) return { ok: false, problem: 'must be an extended public key (xpub...), never a recovery phrase; nothing was stored' };
    if (!/^[a-z]+\(/.test(value)) return this.parseExtended(value, null);
    const { script, checksum } = checkDescriptorChecksum(value);
    const descriptor = DESCRIPTOR.exec(script);
    if (!descriptor) return { ok: false, problem: DESCRIPTOR_TYPES };
    // The key's own problems first (a private key is said so whatever the checksum), then the checksum.
    const parse = this.parseDescriptor(descriptor[1], descriptor[2]);
    if (!parse.ok || !verifyChecksum || checksum === 'absent' || checksum === 'valid') return parse;
    return { ok: false, problem: checksum === 'wrong' ? WRONG_CHECKSUM : MALFORMED_CHECKSUM };
  }

  private parseDescriptor(fn: string, inner: string): Parse {
    let type: AddressType;
    let keyPart = inner;
    if (fn === 'wpkh') type = 'p2wpkh';
    else if (fn === 'pkh') type = 'p2pkh';
    else {
      const nested = /^wpkh\((.*)\)$/.exec(inner);
      if (!nested) return { ok: false, problem: DESCRIPTOR_TYPES };
      type = 'p2sh-p2wpkh';
      keyPart = nested[1];
    }
    if (PRIVATE_PREFIX.test(keyPart.replace(/^\[[^\]]*\]/, ''))) return { ok: false, problem: NEVER_PRIVATE };
    const key = DESCRIPTOR_KEY.exec(keyPart);
    if (!key) {
      if (this.isWif(keyPart.replace(/^\[[^\]]*\]/, ''))) return { ok: false, problem: NEVER_PRIVATE };
      return { ok: false, problem: "the descriptor's key must be an account-level extended public key (with or without its [origin] and /0/*)" };
    }
    const path = key[4];
    if (path && path !== '/0/*' && path !== '/<0;1>/*') {
      return { ok: false, problem: "the descriptor's key must end with the receive chain /0/* (or /<0;1>/*), or with nothing" };
    }
    return this.parseExtended(key[3], type);
  }

  private isWif(text: string): boolean {
    try {
      const bytes = base58check.decode(text);
      return (bytes.length === 33 || bytes.length === 34) && WIF_VERSIONS.has(bytes[0]);
    } catch {
      return false;
    }
  }

  /** An extended key; `type` is the descriptor's (null: the version's). */
  private parseExtended(text: string, type: AddressType | null): Parse {
    let bytes: Uint8Array;
    try {
      bytes = base58check.decode(text);
    } catch {
      return { ok: false, problem: 'is not a valid extended public key (bad characters, length or checksum)' };
    }
    if ((bytes.length === 33 || bytes.length === 34) && WIF_VERSIONS.has(bytes[0])) return { ok: false, problem: NEVER_PRIVATE };
    if (bytes.length !== 78) return { ok: false, problem: 'is not a valid extended public key (bad length)' };
    const version = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
    const own = this.network.keyVersions.find((k) => k.version === version);
    const known = own ?? ALL_KEY_VERSIONS.get(version)?.key;
    if (known?.private) return { ok: false, problem: NEVER_PRIVATE };
    if (!own) {
      const coins = ALL_KEY_VERSIONS.get(version)?.coins;
      return {
        ok: false,
        problem: coins
          ? `is a key of another coin (${coins.join(', ')}); this wallet receives ${this.network.name} (accepted: ${this.accepted()})`
          : `has an unknown version; ${this.network.name} takes ${this.accepted()}`,
      };
    }
    if (own.net !== keyNetOf(this.chain)) {
      return {
        ok: false,
        problem:
          own.net === 'main'
            ? `is a mainnet key; the ${this.chain} chain of this mode takes testnet keys (${this.accepted()})`
            : `is a testnet key; the main chain takes mainnet keys (${this.accepted()})`,
      };
    }
    const addressType = type ?? own.type;
    if (addressType !== 'p2pkh' && this.params.bech32 === null) {
      return { ok: false, problem: `${this.network.name} has no segwit addresses: give a P2PKH key (${this.accepted('p2pkh')})` };
    }
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(text, { public: version, private: 0 });
    } catch {
      return { ok: false, problem: 'is not a valid extended public key (its public key is not a point of the curve)' };
    }
    if (key.privateKey) return { ok: false, problem: NEVER_PRIVATE };
    if (key.depth !== ACCOUNT_DEPTH) {
      return { ok: false, problem: `must be an account-level key (depth 3, as m/84'/0'/0'); this one has depth ${key.depth}` };
    }
    return { ok: true, parsed: { key, type: addressType } };
  }

  /** The public versions this coin takes on this chain (optionally of one address type), for messages. */
  private accepted(type?: AddressType): string {
    const net = keyNetOf(this.chain);
    const names = this.network.keyVersions.filter((k: KeyVersion) => !k.private && k.net === net && (!type || k.type === type)).map((k) => k.name);
    return [...new Set(names)].join(', ');
  }

  private addressOf({ key, type }: ParsedKey, index: number): string {
    const child = key.deriveChild(RECEIVE_CHAIN).deriveChild(index);
    if (!child.publicKey) throw new Error('derived key has no public key');
    const p = this.params;
    if (type === 'p2pkh' && p.cashaddr) return cashaddrEncode(p.cashaddr, 'p2pkh', hash160(child.publicKey));
    const net = { bech32: p.bech32 ?? '', pubKeyHash: p.pubKeyHash, scriptHash: p.scriptHash, wif: 0 };
    if (type === 'p2pkh') return p2pkh(child.publicKey, net).address;
    if (type === 'p2wpkh') return p2wpkh(child.publicKey, net).address;
    return p2sh(p2wpkh(child.publicKey, net), net).address;
  }
}

/** Units (satoshis) as a coin amount for BIP21: at most 8 decimals, no trailing zeros. */
export function coinAmount(units: bigint): string {
  const scale = 10n ** BigInt(COIN_DECIMALS);
  const whole = units / scale;
  const fraction = (units % scale).toString().padStart(COIN_DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
