import { createHash } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import type { AccountKeyCheck } from '../domain/payment-rail';

/** Depth of an account-level key (m/44'/<coin>'/0'), as wallets export it. */
const ACCOUNT_DEPTH = 3;
/** Receive chain under the account (m/44'/<coin>'/0'/0/i); change (1) is never handed out. */
const RECEIVE_CHAIN = 0;
const MAX_INDEX = 0x7fffffff;

const PRIVATE_PREFIXES = /^(xprv|yprv|zprv|tprv|uprv|vprv|Yprv|Zprv|Uprv|Vprv)/;
const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const WORDS = /^[a-z]+(\s+[a-z]+){11,23}$/i;
const NEVER_PRIVATE = 'must be an extended public key (xpub...), never a private key; nothing was stored';

/**
 * The account keys of the families that take a plain BIP32 `xpub` of m/44'/<coin>'/0' (EVM: 60, Tron: 195):
 * the checks of what a merchant pasted, the key's fingerprint and its receive chain's public keys. Each
 * family turns those public keys into its own addresses. Messages never quote the key: a mistaken private
 * key must not end up in a log line or a response.
 */
export class AccountXpub {
  /**
   * `family` is part of every fingerprint; `accountPath` is named in messages (m/44'/60'/0'), and also in the
   * refusal of a key of another form (a zpub, say) when `pathForOtherForms`, as Tron's keys do.
   */
  constructor(
    private readonly family: string,
    private readonly accountPath: string,
    private readonly pathForOtherForms = false,
  ) {}

  /** The trimmed key when it is an account-level xpub, else a problem naming what it is instead. */
  parse(text: string): { ok: true; value: string } | { ok: false; problem: string } {
    const value = text.trim();
    if (PRIVATE_PREFIXES.test(value) || HEX_KEY.test(value)) return { ok: false, problem: NEVER_PRIVATE };
    if (WORDS.test(value)) return { ok: false, problem: 'must be an extended public key (xpub...), never a recovery phrase; nothing was stored' };
    if (!value.startsWith('xpub')) {
      const which = this.pathForOtherForms ? ` (the account key of ${this.accountPath})` : '';
      return { ok: false, problem: `must be a BIP32 extended public key starting with xpub${which}` };
    }
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(value);
    } catch {
      return { ok: false, problem: 'is not a valid extended public key (bad length, version or checksum)' };
    }
    if (key.privateKey) return { ok: false, problem: NEVER_PRIVATE };
    if (key.depth !== ACCOUNT_DEPTH) {
      return { ok: false, problem: `must be an account-level key (depth 3, as ${this.accountPath}); this one has depth ${key.depth}` };
    }
    return { ok: true, value };
  }

  /** `parse`, then the family's first address (as users see it) and the fingerprint: a rail's `checkAccountKey`. */
  check(text: string, firstAddress: (accountKey: string) => string): AccountKeyCheck {
    const parsed = this.parse(text);
    if (!parsed.ok) return parsed;
    return { ok: true, key: { text: parsed.value, firstAddress: firstAddress(parsed.value), fingerprint: this.fingerprint(parsed.value) } };
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

  /** The compressed public key at `index` of the receive chain (m/.../0/index). */
  receivePublicKey(accountKey: string, index: number): Uint8Array {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`address index out of range: ${index}`);
    const child = HDKey.fromExtendedKey(accountKey).deriveChild(RECEIVE_CHAIN).deriveChild(index);
    if (!child.publicKey) throw new Error('derived key has no public key');
    return child.publicKey;
  }
}
