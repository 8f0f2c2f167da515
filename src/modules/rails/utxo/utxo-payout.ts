import { createHash } from 'node:crypto';
import { base58check, bech32, bech32m } from '@scure/base';
import type { RailMode } from '../domain/chains-config';
import type { PayoutAddressCheck, PayoutUriRequest, TransactionIdCheck } from '../domain/payment-rail';
import { plainPayoutUri } from '../domain/payouts';
import { cashaddrCheck } from './cashaddr';
import { chainsOf, UTXO_NETWORKS } from './utxo-networks';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));

/** What a payout address may be on a network in a mode: the parameters of its main chain (live), or of every test chain (test). */
function paramsOf(network: string, mode: RailMode) {
  const known = UTXO_NETWORKS[network];
  const chains = chainsOf(known).filter((c) => (mode === 'live') === (c === 'main'));
  const params = chains.map((c) => known.chains[c]!);
  const unique = <T>(list: Array<T | null | undefined>): T[] => [...new Set(list.filter((x): x is T => x !== null && x !== undefined))];
  return {
    hrp: unique(params.map((p) => p.bech32)),
    versions: unique(params.flatMap((p) => [p.pubKeyHash, p.scriptHash, p.oldScriptHash])),
    cashaddr: unique(params.map((p) => p.cashaddr)),
  };
}

/**
 * A payer's refund address on a UTXO network: segwit (bech32 for version 0, bech32m for later
 * versions, with the network's prefix), base58check with the network's version bytes, and for Bitcoin
 * Cash cashaddr (`bitcoincash:q...`, the prefix optional). Live mode takes mainnet addresses only, test
 * mode testnet and regtest ones only, so live money never goes to a test address.
 */
export function checkUtxoPayoutAddress(network: string, mode: RailMode, text: string): PayoutAddressCheck {
  const address = text.trim();
  if (!address) return { ok: false, problem: 'must not be empty' };
  const params = paramsOf(network, mode);
  const where = `a ${mode === 'live' ? 'mainnet' : 'testnet or regtest'} ${network.toLowerCase().replace('_', ' ')} address`;
  const lower = address.toLowerCase();
  // Segwit: <hrp>1<data>, one case only.
  const sep = lower.lastIndexOf('1');
  if (sep > 0 && params.hrp.includes(lower.slice(0, sep))) {
    if (address !== lower && address !== address.toUpperCase()) return { ok: false, problem: 'must not mix upper and lower case' };
    return validSegwit(lower) ? { ok: true, address: lower } : { ok: false, problem: `has a wrong checksum or length for ${where}` };
  }
  if (params.cashaddr.length) {
    const cash = cashaddrCheck(lower, params.cashaddr);
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

/** A valid segwit address: witness version 0 (bech32, 20 or 32 bytes) or 1-16 (bech32m, 2-40 bytes). */
function validSegwit(address: string): boolean {
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

/** BIP21: `<scheme>:<address>?amount=<coin>` (Bitcoin Cash's cashaddr already starts with its scheme), with a rail or without. */
export function utxoPayoutUri({ network, address, amount }: PayoutUriRequest): string {
  return plainPayoutUri(UTXO_NETWORKS[network]?.scheme ?? network, address, amount);
}

/** A UTXO transaction id: 64 hexadecimal digits (no `0x`). */
export function checkUtxoTransactionId(text: string): TransactionIdCheck {
  return /^[0-9a-fA-F]{64}$/.test(text) ? { ok: true, id: text.toLowerCase() } : { ok: false, problem: 'must be the transaction id: 64 hexadecimal digits' };
}
