import { createHash, randomBytes } from 'node:crypto';
import type { AccountKeyCheck, PaymentRequest, RailKeys } from '../domain/payment-rail';
import { base58Bytes, walletAddressProblem } from './solana-address';
import { solanaKit } from './solana-libs';
import { transferRequestUri, unitsToAmount } from './solana-pay';

/** Decimals of SOL (1 SOL = 10^9 lamports). */
export const SOL_DECIMALS = 9;

/**
 * A fresh reference key for one payment address: 32 random bytes in base58. Solana Pay references need
 * not be on the curve nor name an account; the payer's wallet adds it to the transfer as a read-only
 * account, which is how the watcher tells one invoice's payment from another's to the same wallet.
 */
export function newReference(random: (size: number) => Uint8Array = (n) => new Uint8Array(randomBytes(n))): string {
  return solanaKit().getBase58Decoder().decode(random(32));
}

/**
 * Solana's "keys": a merchant registers their wallet's address (Solana wallets export no extended public
 * key), the same address receives every payment, and a fresh random reference per payment address tells
 * them apart. The account key is the address itself. A payment address is kept as `<wallet>/<reference>`
 * (joinPaymentKey): deriveAddress gives a new one on every call (the index only counts them), which the
 * wallet row's unique index keeps from being handed out twice; it is shown as the wallet's address, its
 * reference apart.
 */
export class SolanaKeys implements RailKeys {
  constructor(private readonly random?: (size: number) => Uint8Array) {}

  checkAccountKey(text: string): AccountKeyCheck {
    const address = text.trim();
    const problem = walletAddressProblem(address);
    if (problem !== null) return { ok: false, problem };
    return { ok: true, key: { text: address, firstAddress: address, fingerprint: this.fingerprint(address) } };
  }

  /** A hash of the family and the address's 32 bytes. */
  fingerprint(accountKey: string): string {
    const bytes = base58Bytes(accountKey.trim());
    if (bytes === null || bytes.length !== 32) throw new Error('not a Solana address');
    return createHash('sha256').update('solana:').update(bytes).digest('hex');
  }

  /** A new payment address of the wallet: the wallet with a fresh reference. */
  deriveAddress(accountKey: string): string {
    return joinPaymentKey(accountKey.trim(), newReference(this.random));
  }

  /** The wallet a payment address pays (the address itself when it is a plain one). */
  displayAddress(address: string): string {
    return splitPaymentKey(address)?.wallet ?? address;
  }

  /** The reference of a payment address. */
  referenceOf(address: string): string | null {
    return splitPaymentKey(address)?.reference ?? null;
  }

  /**
   * A Solana Pay transfer request to the wallet for the amount (in the coin or the token, from units at
   * the asset's decimals), `spl-token` the mint when a token is asked, the payment address's reference,
   * and the label and message when the caller gives them.
   */
  paymentUri(request: PaymentRequest): string {
    const key = splitPaymentKey(request.address);
    return transferRequestUri({
      recipient: key?.wallet ?? request.address,
      amount: unitsToAmount(request.units, request.decimals ?? SOL_DECIMALS),
      splToken: request.asset,
      references: key ? [key.reference] : request.reference ? [request.reference] : [],
      label: request.label ?? null,
      message: request.message ?? null,
    });
  }
}

/**
 * A payment address as the service keeps it (the deposit address row, what the watcher matches): the
 * wallet and the payment's reference, `<wallet>/<reference>`. Unique as the reference is.
 */
export function joinPaymentKey(wallet: string, reference: string): string {
  return `${wallet}/${reference}`;
}

export function splitPaymentKey(key: string): { wallet: string; reference: string } | null {
  const [wallet, reference, extra] = key.split('/');
  return wallet && reference && extra === undefined ? { wallet, reference } : null;
}
