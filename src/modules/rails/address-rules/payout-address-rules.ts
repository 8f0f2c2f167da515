import { createHash } from 'node:crypto';
import { base58xrp } from '@scure/base';
import type { PayoutAddressCheck, PayoutAddressRule } from '../domain/payment-rail';

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

/**
 * XRP Ledger: a classic address (`r...`) in the ledger's base58 alphabet with its double-SHA-256
 * checksum.
 */
function checkXrp(address: string): PayoutAddressCheck {
  let bytes: Uint8Array;
  try {
    bytes = base58xrp.decode(address);
  } catch {
    return { ok: false, problem: 'is not an XRP Ledger address (it has characters outside its alphabet)' };
  }
  if (bytes.length !== 25 || bytes[0] !== 0x00) return { ok: false, problem: 'is not an XRP Ledger classic address (r followed by 24 to 34 characters)' };
  const sum = sha256(sha256(bytes.slice(0, 21)));
  if (!sum.slice(0, 4).every((b, i) => b === bytes[21 + i])) return { ok: false, problem: 'has a wrong checksum for an XRP Ledger address' };
  return { ok: true, address };
}

const rule = (network: string, check: (address: string) => PayoutAddressCheck): PayoutAddressRule => ({
  networks: [network],
  checkPayoutAddress: (_network, _mode, text) => {
    const address = text.trim();
    return address ? check(address) : { ok: false, problem: 'must not be empty' };
  },
});

/**
 * Payout address rules of the catalog's networks no adapter serves yet, used only when no adapter
 * serves the network. No rail reads a payout on them, so they are offered in test mode alone, where the
 * merchant simulates the payout (decisions §19, "Test mode"). A family that gets an adapter takes its
 * network's rule into the adapter's checkPayoutAddress, and its line here goes.
 */
export const PAYOUT_ADDRESS_RULES: readonly PayoutAddressRule[] = [rule('ripple', checkXrp)];
