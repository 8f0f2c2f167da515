import { trimmedAmount } from '../domain/payouts';

/** What a Solana Pay transfer request asks a wallet to send. */
export interface TransferRequest {
  /** The recipient wallet (never a token account: the wallet derives its associated token account). */
  recipient: string;
  /** In the coin or token (SOL, not lamports; the token's ui amount), a decimal with at most its decimals. */
  amount: string;
  /** The mint of an SPL token, or null for SOL. */
  splToken: string | null;
  /** Keys the wallet adds to the transfer as read-only non-signer accounts, in order. */
  references?: readonly string[];
  label?: string | null;
  message?: string | null;
}

/** Units in the smallest denomination as the decimal a Solana Pay `amount` takes (no exponent, leading 0, no trailing zeros). */
export function unitsToAmount(units: bigint, decimals: number): string {
  if (units < 0n) throw new Error('an amount is never negative');
  const text = units.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = decimals === 0 ? '' : text.slice(text.length - decimals);
  return trimmedAmount(fraction ? `${whole}.${fraction}` : whole);
}

/**
 * A Solana Pay transfer request URL: `solana:<recipient>?amount=..&spl-token=..&reference=..&label=..&message=..`,
 * parameters in the specification's order, `spl-token` only for a token, `label` and `message`
 * percent-encoded (UTF-8). The amount is written as given, without trailing zeros after its point.
 */
export function transferRequestUri(request: TransferRequest): string {
  const params: string[] = [`amount=${trimmedAmount(request.amount)}`];
  if (request.splToken) params.push(`spl-token=${request.splToken}`);
  for (const reference of request.references ?? []) params.push(`reference=${reference}`);
  if (request.label) params.push(`label=${encodeURIComponent(request.label)}`);
  if (request.message) params.push(`message=${encodeURIComponent(request.message)}`);
  return `solana:${request.recipient}?${params.join('&')}`;
}
