import type { Address } from '@solana/kit';
import type { PayoutAddressCheck } from '../domain/payment-rail';
import { solanaKit } from './solana-libs';

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** The bytes of a base58 text, or null when it has a character outside Bitcoin's base58 alphabet (Solana's). */
export function base58Bytes(text: string): Uint8Array | null {
  if (!BASE58.test(text)) return null;
  try {
    return new Uint8Array(solanaKit().getBase58Encoder().encode(text));
  } catch {
    return null;
  }
}

/** A Solana account address: base58 of 32 bytes (any 32 bytes: a wallet's key, a program, a derived account). */
export function isSolanaAddress(text: string): text is Address {
  return base58Bytes(text)?.length === 32 && solanaKit().isAddress(text);
}

/**
 * A wallet's own address: an ed25519 public key on the curve, which a private key can sign for. An
 * address off the curve (a program-derived address, such as an associated token account) has no
 * private key: funds sent there as to a wallet are lost, and wallets refuse such a recipient.
 */
export function isWalletAddress(text: string): boolean {
  return isSolanaAddress(text) && !solanaKit().isOffCurveAddress(text);
}

/**
 * Why a text is not a wallet address a payment or refund can go to (a message naming the fix), or null
 * when it is one. A 64-byte base58 text is a keypair's secret key: refused as a private key.
 */
export function walletAddressProblem(text: string): string | null {
  if (text === '') return 'must not be empty';
  if (/\s/.test(text.trim())) return 'is not a Solana address (a recovery phrase is never taken: send the wallet address, base58)';
  const bytes = base58Bytes(text);
  if (bytes === null) return 'is not a Solana address (it has characters outside base58)';
  if (bytes.length === 64) return 'is a private key (a 64-byte secret key): never send it; send the wallet address (base58, 32 bytes)';
  if (bytes.length !== 32) return 'is not a Solana address (32 bytes in base58)';
  if (solanaKit().isOffCurveAddress(text as Address))
    return "is not a wallet's own address (it is off the ed25519 curve: a program-derived or token account address); send the wallet address its owner signs with";
  return null;
}

/** A payer's refund address on Solana: a wallet address (on the curve), the same on every cluster. */
export function checkSolanaPayoutAddress(_network: string, _mode: string, text: string): PayoutAddressCheck {
  const address = text.trim();
  const problem = walletAddressProblem(address);
  return problem === null ? { ok: true, address } : { ok: false, problem };
}
