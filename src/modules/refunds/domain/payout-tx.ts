/**
 * The form of a payout transaction's id on the refund's chain family: `0x` and 64 hexadecimal digits
 * on EVM chains, the 64 hexadecimal digits of a txid on UTXO chains. When the refund's network has no
 * rail now (`family` null), either form is taken: the chain is asked later and says whether it knows it.
 */
export function txHashProblem(family: 'evm' | 'utxo' | null, hash: string): string | null {
  const evm = /^0x[0-9a-fA-F]{64}$/.test(hash);
  const utxo = /^[0-9a-fA-F]{64}$/.test(hash);
  if (family === 'evm') return evm ? null : 'must be 0x followed by 64 hexadecimal digits';
  if (family === 'utxo') return utxo ? null : 'must be the transaction id: 64 hexadecimal digits';
  return evm || utxo ? null : 'must be a transaction hash (64 hexadecimal digits, with 0x on EVM chains)';
}
