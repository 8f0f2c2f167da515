/**
 * The payment request a merchant's wallet opens to send a refund (decisions §19: `payout.uri`), in
 * the chain's payment-URI standard, the same as deposit addresses use:
 * - EVM (EIP-681): `ethereum:<address>@<chain_id>?value=<wei>` for the network's coin,
 *   `ethereum:<token>@<chain_id>/transfer?address=<address>&uint256=<units>` for a token.
 * - UTXO (BIP21): `<scheme>:<address>?amount=<coin>` (bitcoin, litecoin, dogecoin; Bitcoin Cash's
 *   cashaddr already starts with its scheme).
 */
export type PayoutRequest =
  | { family: 'evm'; address: string; chainId: number; units: string; token: string | null }
  | { family: 'utxo'; network: string; address: string; amount: string };

const UTXO_SCHEMES: Readonly<Record<string, string>> = { BITCOIN: 'bitcoin', LITECOIN: 'litecoin', DOGECOIN: 'dogecoin', BITCOIN_CASH: 'bitcoincash' };

export function payoutUri(req: PayoutRequest): string {
  if (req.family === 'evm') {
    return req.token === null
      ? `ethereum:${req.address}@${req.chainId}?value=${req.units}`
      : `ethereum:${req.token}@${req.chainId}/transfer?address=${req.address}&uint256=${req.units}`;
  }
  const amount = req.amount.includes('.') ? req.amount.replace(/0+$/, '').replace(/\.$/, '') : req.amount;
  const scheme = UTXO_SCHEMES[req.network] ?? req.network.toLowerCase();
  const target = req.address.includes(':') ? req.address : `${scheme}:${req.address}`;
  return `${target}?amount=${amount}`;
}
