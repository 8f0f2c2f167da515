import { secp256k1 } from '@noble/curves/secp256k1';
import { viem } from '../evm/viem';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';
import { AccountXpub } from '../keys/account-xpub';
import { hexToTron } from './tron-address';

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
 * exports m/44'/195'/0'), its receive addresses m/.../0/i as Tron writes them. The key checks, the
 * fingerprint and the derivation are the rails' `AccountXpub` (@scure/bip32), the point decompression
 * from @noble/curves.
 */
export class TronKeys implements RailKeys {
  readonly family = 'tron';
  private readonly xpub = new AccountXpub(this.family, "m/44'/195'/0'", true);

  checkAccountKey(text: string): AccountKeyCheck {
    return this.xpub.check(text, (key) => this.deriveAddress(key, 0));
  }

  /** The family, the compressed public key and the chain code (`AccountXpub.fingerprint`). */
  fingerprint(accountKey: string): string {
    return this.xpub.fingerprint(accountKey);
  }

  /** The base58 `T...` address at `index` of the receive chain. */
  deriveAddress(accountKey: string, index: number): string {
    return tronAddressOfPublicKey(this.xpub.receivePublicKey(accountKey, index));
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
