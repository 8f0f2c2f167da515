import { secp256k1 } from '@noble/curves/secp256k1';
import { viem, viemAccounts } from './viem';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';
import { AccountXpub } from '../keys/account-xpub';

/**
 * BIP32 watch-only keys of EVM wallets (m/44'/60'/0'): the key checks, the fingerprint and the
 * derivation are the rails' `AccountXpub` (@scure/bip32); nothing here does curve arithmetic itself.
 */
export class EvmKeys implements RailKeys {
  readonly family = 'evm';
  private readonly xpub = new AccountXpub(this.family, "m/44'/60'/0'");

  checkAccountKey(text: string): AccountKeyCheck {
    return this.xpub.check(text, (key) => this.displayAddress(this.deriveAddress(key, 0)));
  }

  /** The family, the compressed public key and the chain code (`AccountXpub.fingerprint`). */
  fingerprint(accountKey: string): string {
    return this.xpub.fingerprint(accountKey);
  }

  deriveAddress(accountKey: string, index: number): string {
    const uncompressed = secp256k1.ProjectivePoint.fromHex(this.xpub.receivePublicKey(accountKey, index)).toRawBytes(false);
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
