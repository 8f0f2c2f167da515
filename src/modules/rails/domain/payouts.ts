import type { TransactionIdCheck } from './payment-rail';

/** A coin amount without trailing zeros after its point (`0.00105200` -> `0.001052`, `1.000` -> `1`), as payment URIs write it. */
export function trimmedAmount(amount: string): string {
  return amount.includes('.') ? amount.replace(/0+$/, '').replace(/\.$/, '') : amount;
}

/**
 * The payout URI of a network the mode has no rail on (test mode only: nobody sends it, the merchant
 * simulates the payout): `<scheme>:<address>?amount=<coin>`, the scheme the network's slug unless the
 * family names one; an address that already starts with its scheme (a cashaddr) keeps it.
 */
export function plainPayoutUri(scheme: string, address: string, amount: string): string {
  const target = address.includes(':') ? address : `${scheme}:${address}`;
  return `${target}?amount=${trimmedAmount(amount)}`;
}

/**
 * A payout transaction id on a network the mode has no rail on: either common form is taken (`0x` and
 * 64 hexadecimal digits, or the 64 digits alone); the chain is asked later and says whether it knows it.
 */
export function anyTransactionId(text: string): TransactionIdCheck {
  return /^(0x)?[0-9a-fA-F]{64}$/.test(text)
    ? { ok: true, id: text.toLowerCase() }
    : { ok: false, problem: 'must be a transaction hash (64 hexadecimal digits, with 0x on EVM chains)' };
}
