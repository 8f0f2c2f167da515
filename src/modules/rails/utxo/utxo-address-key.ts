import { createHash } from 'node:crypto';
import { base58check } from '@scure/base';
import { cashaddrPayload } from './cashaddr';
import { chainsOf, UTXO_NETWORKS } from './utxo-networks';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));

/**
 * What each base58 version byte of the UTXO coins stands for: a key hash or a script hash. One byte never
 * means both across the coins (checked here as the table is built), so an address's kind is read from its
 * byte alone. Litecoin's old script-hash byte (`3...`) is a script hash like its own (`M...`).
 */
const KIND_OF_VERSION: ReadonlyMap<number, 'p2pkh' | 'p2sh'> = (() => {
  const kinds = new Map<number, 'p2pkh' | 'p2sh'>();
  const add = (version: number, kind: 'p2pkh' | 'p2sh') => {
    if (kinds.has(version) && kinds.get(version) !== kind) throw new Error(`UTXO address version ${version} is both a key hash and a script hash`);
    kinds.set(version, kind);
  };
  for (const network of Object.values(UTXO_NETWORKS)) {
    for (const chain of chainsOf(network)) {
      const params = network.chains[chain]!;
      add(params.pubKeyHash, 'p2pkh');
      add(params.scriptHash, 'p2sh');
      if (params.oldScriptHash !== undefined) add(params.oldScriptHash, 'p2sh');
    }
  }
  return kinds;
})();

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * One key per script an address pays, whichever way the address is written: a payer may give a refund
 * address in a form the node does not print (Litecoin's old `3...` for the script it prints as `M...`,
 * Bitcoin Cash's legacy `1...` for its `bitcoincash:q...`), and the two must still compare equal. A
 * base58 address or a CashAddr is its kind and hash (`p2sh:<hex>`); a segwit address (one case only) is
 * itself in lower case; anything else is the text as it is. Within one network no two scripts share a key.
 */
export function utxoAddressKey(address: string): string {
  const text = address.trim();
  const cash = cashaddrPayload(text);
  if (cash && (text === text.toLowerCase() || text === text.toUpperCase())) return `${cash.type}:${hex(cash.hash)}`;
  const lower = text.toLowerCase();
  if ((text === lower || text === text.toUpperCase()) && /^[a-z]{1,83}1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{6,}$/.test(lower)) return lower;
  try {
    const payload = b58.decode(text);
    const kind = payload.length === 21 ? KIND_OF_VERSION.get(payload[0]) : undefined;
    if (kind) return `${kind}:${hex(payload.subarray(1))}`;
  } catch {
    // Not base58check: compared as written.
  }
  return text;
}
