import { utxoAddressKey } from './utxo/utxo-address-key';
import { UTXO_NETWORKS } from './utxo/utxo-networks';

/**
 * One name per destination a payout pays, however the payer wrote its address: two refunds claimed with
 * two spellings of one script (Litecoin's old `2...`/`3...` and its `Q...`/`M...`, Bitcoin Cash's legacy
 * and CashAddr forms) name the same destination, so one output cannot pay both. On networks where an
 * address has one spelling as checked (EVM checksummed, Tron, Solana) it is the address itself. Applying it
 * twice gives the same name.
 */
export function payoutDestinationKey(network: string, address: string): string {
  return Object.prototype.hasOwnProperty.call(UTXO_NETWORKS, network.toLowerCase()) ? utxoAddressKey(address) : address;
}
