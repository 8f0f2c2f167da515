import { formatTimestamp } from '../../../shared/time/time';
import type { ChainFamily } from '../domain/payment-rail';
import type { WalletRow } from '../persistence/wallets.repository';

export interface WalletView {
  id: string;
  chain_family: ChainFamily;
  /** The network a UTXO wallet receives on (bitcoin, litecoin, dogecoin, bitcoin_cash); null for a family-wide wallet. */
  network: string | null;
  first_address: string;
  /** The wallet new deposit addresses come from (one per organization, mode and family). */
  active: boolean;
  /** Deposit addresses handed out so far (indexes 0 to addresses_issued - 1 of the receive chain). */
  addresses_issued: number;
  /** Addresses issued after the last one that received money (all issued ones while none did). */
  unused_gap: number;
  created_at: string;
  replaced_at: string | null;
}

/** The key itself is never returned: a watch-only key still reveals every address of the wallet. */
export function walletView(row: WalletRow): WalletView {
  return {
    id: row.id,
    chain_family: row.chain_family,
    network: row.network,
    first_address: row.first_address,
    active: row.active,
    addresses_issued: row.next_index,
    unused_gap: row.unused_gap,
    created_at: formatTimestamp(row.created_at),
    replaced_at: formatTimestamp(row.replaced_at),
  };
}
