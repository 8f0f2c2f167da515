import { createHash } from 'node:crypto';
import { base58check as base58checkWith } from '@scure/base';

/** The first byte of every Tron mainnet address (the base58 form then starts with `T`). */
export const TRON_ADDRESS_PREFIX = 0x41;

const base58check = base58checkWith((data) => new Uint8Array(createHash('sha256').update(data).digest()));
const HEX_ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/;

/**
 * Tron addresses in their two spellings. Users see base58check of `0x41` + 20 bytes (`T...`);
 * java-tron's JSON-RPC speaks the 20 bytes alone as EVM-style hex (`0x` + 40 digits, its `0x41` byte
 * dropped). The service keeps the base58 form (deposit addresses, token contracts in CHAINS_FILE) and
 * turns it to hex only on the wire.
 */
export function tronToHex(address: string): string {
  const bytes = decodeTron(address);
  if (!bytes) throw new Error('not a Tron address');
  return `0x${Buffer.from(bytes.subarray(1)).toString('hex')}`;
}

/** The base58 `T...` form of a 20-byte hex address (`0x` optional), as the node answers it. */
export function hexToTron(hex: string): string {
  if (!HEX_ADDRESS.test(hex)) throw new Error('not a 20-byte hex address');
  const body = Buffer.from(hex.replace(/^0x/, ''), 'hex');
  return base58check.encode(Uint8Array.from([TRON_ADDRESS_PREFIX, ...body]));
}

/** The 21 bytes of a base58check Tron address, or null when it is not one (bad checksum, length or prefix). */
export function decodeTron(address: string): Uint8Array | null {
  if (typeof address !== 'string' || !/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return null;
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 && bytes[0] === TRON_ADDRESS_PREFIX ? bytes : null;
  } catch {
    return null;
  }
}

export const isTronAddress = (address: string): boolean => decodeTron(address) !== null;

/**
 * A payer's refund address on Tron: base58check (double SHA-256) of 21 bytes starting 0x41 (`T...`),
 * the same on its test networks. Kept as typed (base58 is case-sensitive).
 */
export function checkTronPayoutAddress(_network: string, _mode: string, text: string): { ok: true; address: string } | { ok: false; problem: string } {
  const address = text.trim();
  if (!address) return { ok: false, problem: 'must not be empty' };
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return { ok: false, problem: 'is not a TRON address (its checksum or characters are wrong)' };
  }
  if (payload.length !== 21 || payload[0] !== TRON_ADDRESS_PREFIX) return { ok: false, problem: 'is not a TRON address (T followed by 33 characters)' };
  return { ok: true, address };
}
