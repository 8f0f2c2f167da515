import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { HDKey } from '@scure/bip32';
import { viem } from '../evm/viem';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';
import { hexToTron } from './tron-address';

/** Depth of an account-level key (m/44'/195'/0'), as wallets export it. */
const ACCOUNT_DEPTH = 3;
/** Receive chain under the account (m/44'/195'/0'/0/i); change (1) is never handed out. */
const RECEIVE_CHAIN = 0;
const MAX_INDEX = 0x7fffffff;

const PRIVATE_PREFIXES = /^(xprv|yprv|zprv|tprv|uprv|vprv|Yprv|Zprv|Uprv|Vprv)/;
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const WORDS = /^[a-z]+(\s+[a-z]+){11,23}$/i;

/**
 * The Tron address of a secp256k1 public key (compressed or not): the last 20 bytes of keccak-256 of
 * the 64-byte uncompressed key X||Y (without its `04` byte), after `0x41`, in base58check.
 */
export function tronAddressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  const hash = viem().keccak256(uncompressed.subarray(1));
  return hexToTron(`0x${hash.slice(-40)}`);
}

/**
 * Watch-only keys of Tron wallets: a BIP32 account key of coin type 195 (`xpub...`, as a wallet
 * exports m/44'/195'/0'), its receive addresses m/.../0/i as Tron writes them. The keys come from
 * @scure/bip32, the point decompression from @noble/curves. Messages never quote the key: a mistaken
 * private key must not end up in a log line or a response.
 */
export class TronKeys implements RailKeys {
  readonly family = 'tron';

  checkAccountKey(text: string): AccountKeyCheck {
    const value = text.trim();
    if (PRIVATE_PREFIXES.test(value) || HEX_KEY.test(value)) {
      return { ok: false, problem: 'must be an extended public key (xpub...), never a private key; nothing was stored' };
    }
    if (WORDS.test(value)) return { ok: false, problem: 'must be an extended public key (xpub...), never a recovery phrase; nothing was stored' };
    if (!value.startsWith('xpub')) return { ok: false, problem: "must be a BIP32 extended public key starting with xpub (the account key of m/44'/195'/0')" };
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(value);
    } catch {
      return { ok: false, problem: 'is not a valid extended public key (bad length, version or checksum)' };
    }
    if (key.privateKey) return { ok: false, problem: 'must be an extended public key (xpub...), never a private key; nothing was stored' };
    if (key.depth !== ACCOUNT_DEPTH) {
      return { ok: false, problem: `must be an account-level key (depth 3, as m/44'/195'/0'); this one has depth ${key.depth}` };
    }
    return { ok: true, key: { text: value, firstAddress: this.deriveAddress(value, 0), fingerprint: this.fingerprint(value) } };
  }

  /**
   * SHA-256 of the family, the compressed public key and the chain code: the addresses depend on
   * these alone, so two exports of one key (another parent fingerprint or child number) are one key.
   * The family is part of it: the same key registered for EVM and for Tron are two wallets.
   */
  fingerprint(accountKey: string): string {
    const key = HDKey.fromExtendedKey(accountKey);
    if (!key.publicKey || !key.chainCode) throw new Error('account key has no public key or chain code');
    return createHash('sha256').update(`${this.family}\n`).update(key.publicKey).update(key.chainCode).digest('hex');
  }

  /** The base58 `T...` address at `index` of the receive chain. */
  deriveAddress(accountKey: string, index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`address index out of range: ${index}`);
    const child = HDKey.fromExtendedKey(accountKey).deriveChild(RECEIVE_CHAIN).deriveChild(index);
    if (!child.publicKey) throw new Error('derived key has no public key');
    return tronAddressOfPublicKey(child.publicKey);
  }

  /** Base58 is already the form users see (and is case-sensitive: kept as it is). */
  displayAddress(address: string): string {
    return address;
  }

  /** Tron has no payment-URI standard: the page shows the address, the amount and a QR code of the address. */
  paymentUri(request: PaymentRequest): string | null {
    void request;
    return null;
  }
}
