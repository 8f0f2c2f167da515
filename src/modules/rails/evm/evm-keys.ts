import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import type { HDKey } from 'viem/accounts';
import { viem, viemAccounts } from './viem';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';

/** Depth of an account-level key (m/44'/60'/0'), as wallets export it. */
const ACCOUNT_DEPTH = 3;
/** Receive chain under the account (m/44'/60'/0'/0/i); change (1) is never handed out. */
const RECEIVE_CHAIN = 0;
const MAX_INDEX = 0x7fffffff;

const PRIVATE_PREFIXES = /^(xprv|yprv|zprv|tprv|uprv|vprv|Yprv|Zprv|Uprv|Vprv)/;
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const WORDS = /^[a-z]+(\s+[a-z]+){11,23}$/i;

/**
 * BIP32 watch-only keys of EVM wallets (the keys come from @scure/bip32 through viem; nothing
 * here does curve arithmetic itself). Messages never quote the key: a mistaken private key must
 * not end up in a log line or a response.
 */
export class EvmKeys implements RailKeys {
  readonly family = 'evm';

  checkAccountKey(text: string): AccountKeyCheck {
    const value = text.trim();
    if (PRIVATE_PREFIXES.test(value) || HEX_KEY.test(value)) {
      return { ok: false, problem: 'must be an extended public key (xpub...), never a private key; nothing was stored' };
    }
    if (WORDS.test(value)) return { ok: false, problem: 'must be an extended public key (xpub...), never a recovery phrase; nothing was stored' };
    if (!value.startsWith('xpub')) return { ok: false, problem: 'must be a BIP32 extended public key starting with xpub' };
    let key: HDKey;
    try {
      key = viemAccounts().HDKey.fromExtendedKey(value);
    } catch {
      return { ok: false, problem: 'is not a valid extended public key (bad length, version or checksum)' };
    }
    if (key.privateKey) return { ok: false, problem: 'must be an extended public key (xpub...), never a private key; nothing was stored' };
    if (key.depth !== ACCOUNT_DEPTH) {
      return { ok: false, problem: `must be an account-level key (depth 3, as m/44'/60'/0'); this one has depth ${key.depth}` };
    }
    return { ok: true, key: { text: value, firstAddress: this.displayAddress(this.deriveAddress(value, 0)), fingerprint: this.fingerprint(value) } };
  }

  /**
   * SHA-256 of the family, the compressed public key and the chain code: the addresses depend on
   * these alone, so two exports of one key (another parent fingerprint or child number) are one key.
   */
  fingerprint(accountKey: string): string {
    const key = viemAccounts().HDKey.fromExtendedKey(accountKey);
    if (!key.publicKey || !key.chainCode) throw new Error('account key has no public key or chain code');
    return createHash('sha256').update(`${this.family}\n`).update(key.publicKey).update(key.chainCode).digest('hex');
  }

  deriveAddress(accountKey: string, index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`address index out of range: ${index}`);
    const child = viemAccounts().HDKey.fromExtendedKey(accountKey).deriveChild(RECEIVE_CHAIN).deriveChild(index);
    if (!child.publicKey) throw new Error('derived key has no public key');
    const uncompressed = secp256k1.ProjectivePoint.fromHex(child.publicKey).toRawBytes(false);
    return viemAccounts()
      .publicKeyToAddress(`0x${Buffer.from(uncompressed).toString('hex')}`)
      .toLowerCase();
  }

  displayAddress(address: string): string {
    return viem().getAddress(address);
  }

  /** EIP-681: `ethereum:<to>@<chain>?value=<wei>`, or for a token `ethereum:<token>@<chain>/transfer?address=<to>&uint256=<units>`. */
  paymentUri({ address, chain: chainId, units, asset: token }: PaymentRequest): string {
    const to = viem().getAddress(address);
    return token === null
      ? `ethereum:${to}@${chainId}?value=${units.toString()}`
      : `ethereum:${viem().getAddress(token)}@${chainId}/transfer?address=${to}&uint256=${units.toString()}`;
  }
}
