// Checks a payout address per chain family with the chain libraries (viem, @scure/base): an adapter, kept out of
// the pure domain (the domain-imports-no-adapter rule).
import { createHash } from 'node:crypto';
import { base58, base58check, base58xrp, bech32, bech32m } from '@scure/base';
import { getAddress, isAddress } from 'viem';

/**
 * Checks a payer's refund address for the network it is paid on (decisions §19), so that a typo is
 * refused before the merchant sends anything:
 *
 * - EVM networks (ETHEREUM, POLYGON, BSC): 20 bytes of hex. A mixed-case address must carry a valid
 *   EIP-55 checksum (a single mistyped character is caught); an all-lower-case one has none to check
 *   and is accepted. The address is kept in its checksummed form.
 * - UTXO networks: segwit addresses (bech32 for version 0, bech32m for later versions, with the
 *   network's prefix), base58check addresses with the network's version bytes, and for Bitcoin Cash
 *   cashaddr (`bitcoincash:q...`, the prefix optional). Live mode takes mainnet addresses only, test
 *   mode testnet and regtest ones only, so live money never goes to a test address.
 *
 * - TRON: base58check (double SHA-256) of 21 bytes starting 0x41 (`T...`), the same on its test
 *   networks. XRP Ledger: a classic address (`r...`) in the ledger's base58 alphabet with its
 *   double-SHA-256 checksum. Solana: base58 of a 32-byte public key (Solana addresses carry no
 *   checksum: only a character outside the alphabet or a wrong length is caught). No live rail
 *   carries these networks, so they are offered only in test mode, where the merchant simulates the
 *   payout (decisions §19, "Test mode").
 *
 * Cards are refused: a card payment has no address to send a refund to.
 */
export type AddressCheck = { ok: true; address: string } | { ok: false; problem: string };

export const EVM_PAYOUT_NETWORKS = ['ETHEREUM', 'POLYGON', 'BSC'] as const;

interface UtxoParams {
  /** bech32 human-readable parts of segwit addresses. */
  hrp: string[];
  /** base58check version bytes (P2PKH, P2SH). */
  versions: number[];
  /** cashaddr prefixes (Bitcoin Cash only). */
  cashaddr?: string[];
}

const UTXO_PARAMS: Readonly<Record<string, { live: UtxoParams; test: UtxoParams }>> = {
  BITCOIN: {
    live: { hrp: ['bc'], versions: [0x00, 0x05] },
    test: { hrp: ['tb', 'bcrt'], versions: [0x6f, 0xc4] },
  },
  LITECOIN: {
    live: { hrp: ['ltc'], versions: [0x30, 0x32, 0x05] },
    test: { hrp: ['tltc', 'rltc'], versions: [0x6f, 0x3a, 0xc4] },
  },
  DOGECOIN: {
    live: { hrp: [], versions: [0x1e, 0x16] },
    test: { hrp: [], versions: [0x71, 0xc4] },
  },
  BITCOIN_CASH: {
    live: { hrp: [], versions: [0x00, 0x05], cashaddr: ['bitcoincash'] },
    test: { hrp: [], versions: [0x6f, 0xc4], cashaddr: ['bchtest', 'bchreg'] },
  },
};

export const UTXO_PAYOUT_NETWORKS = Object.keys(UTXO_PARAMS);

/** Networks whose payout addresses are checked here (the others, cards, take no payout). */
export const OTHER_PAYOUT_NETWORKS = ['TRON', 'RIPPLE', 'SOLANA'] as const;

export function paysOutOn(network: string): boolean {
  return [...EVM_PAYOUT_NETWORKS, ...UTXO_PAYOUT_NETWORKS, ...OTHER_PAYOUT_NETWORKS].includes(network);
}

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const b58 = base58check(sha256);

export function checkPayoutAddress(network: string, mode: 'test' | 'live', text: string): AddressCheck {
  const address = text.trim();
  if (!address) return { ok: false, problem: 'must not be empty' };
  if ((EVM_PAYOUT_NETWORKS as readonly string[]).includes(network)) return checkEvm(address);
  const params = UTXO_PARAMS[network];
  if (params) return checkUtxo(address, params[mode], network, mode);
  if (network === 'TRON') return checkTron(address);
  if (network === 'RIPPLE') return checkXrp(address);
  if (network === 'SOLANA') return checkSolana(address);
  return { ok: false, problem: `refunds are not paid out on ${network}` };
}

function checkEvm(address: string): AddressCheck {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return { ok: false, problem: 'must be 0x followed by 40 hexadecimal digits' };
  if (!isAddress(address, { strict: true })) return { ok: false, problem: 'has a wrong EIP-55 checksum (check every character, or paste it again)' };
  if (/^0x0{40}$/.test(address)) return { ok: false, problem: 'must not be the zero address' };
  return { ok: true, address: getAddress(address) };
}

function checkUtxo(address: string, params: UtxoParams, network: string, mode: 'test' | 'live'): AddressCheck {
  const where = `a ${mode === 'live' ? 'mainnet' : 'testnet or regtest'} ${network.toLowerCase().replace('_', ' ')} address`;
  const lower = address.toLowerCase();
  // Segwit: <hrp>1<data>, one case only.
  const sep = lower.lastIndexOf('1');
  if (sep > 0 && params.hrp.includes(lower.slice(0, sep))) {
    if (address !== lower && address !== address.toUpperCase()) return { ok: false, problem: 'must not mix upper and lower case' };
    const segwit = decodeSegwit(lower);
    return segwit ? { ok: true, address: lower } : { ok: false, problem: `has a wrong checksum or length for ${where}` };
  }
  if (params.cashaddr) {
    const cash = decodeCashaddr(lower, params.cashaddr);
    if (cash !== null) {
      if (address !== lower && address !== address.toUpperCase()) return { ok: false, problem: 'must not mix upper and lower case' };
      return cash ? { ok: true, address: cash } : { ok: false, problem: `has a wrong checksum for ${where}` };
    }
  }
  let payload: Uint8Array;
  try {
    payload = b58.decode(address);
  } catch {
    return { ok: false, problem: `is not ${where} (its checksum or characters are wrong)` };
  }
  if (payload.length !== 21 || !params.versions.includes(payload[0])) return { ok: false, problem: `is not ${where}` };
  return { ok: true, address };
}

function checkTron(address: string): AddressCheck {
  let payload: Uint8Array;
  try {
    payload = b58.decode(address);
  } catch {
    return { ok: false, problem: 'is not a TRON address (its checksum or characters are wrong)' };
  }
  if (payload.length !== 21 || payload[0] !== 0x41) return { ok: false, problem: 'is not a TRON address (T followed by 33 characters)' };
  return { ok: true, address };
}

function checkXrp(address: string): AddressCheck {
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

function checkSolana(address: string): AddressCheck {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return { ok: false, problem: 'is not a Solana address (it has characters outside base58)' };
  }
  if (bytes.length !== 32) return { ok: false, problem: 'is not a Solana address (32 bytes in base58)' };
  return { ok: true, address };
}

/** A valid segwit address: witness version 0 (bech32, 20 or 32 bytes) or 1-16 (bech32m, 2-40 bytes). */
function decodeSegwit(address: string): boolean {
  for (const coder of [bech32, bech32m]) {
    let words: number[];
    try {
      words = coder.decode(address as `${string}1${string}`).words;
    } catch {
      continue;
    }
    if (!words.length) return false;
    const version = words[0];
    if (version > 16 || (version === 0) !== (coder === bech32)) return false;
    let program: Uint8Array;
    try {
      program = coder.fromWords(words.slice(1));
    } catch {
      return false;
    }
    if (version === 0) return program.length === 20 || program.length === 32;
    return program.length >= 2 && program.length <= 40;
  }
  return false;
}

const CASHADDR_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function cashPolymod(values: number[]): bigint {
  const GEN = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    for (let i = 0; i < 5; i++) if ((c0 >> BigInt(i)) & 1n) c ^= GEN[i];
  }
  return c ^ 1n;
}

/**
 * Bitcoin Cash's cashaddr: `prefix:payload` (the prefix may be left out). Null when the text is not
 * shaped like one; false when it is but its checksum or type is wrong; else the address with prefix.
 */
function decodeCashaddr(address: string, prefixes: string[]): string | false | null {
  const colon = address.indexOf(':');
  const candidates = colon >= 0 ? [address.slice(0, colon)] : prefixes;
  const payload = colon >= 0 ? address.slice(colon + 1) : address;
  if (colon >= 0 && !prefixes.includes(candidates[0])) return null;
  if (!/^[qp][qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/.test(payload)) return null;
  const data = [...payload].map((ch) => CASHADDR_CHARSET.indexOf(ch));
  for (const prefix of candidates) {
    const prefixData = [...prefix].map((ch) => ch.charCodeAt(0) & 0x1f);
    if (cashPolymod([...prefixData, 0, ...data]) === 0n) return `${prefix}:${payload}`;
  }
  return false;
}
