import type { RailAdapter } from './domain/payment-rail';
import { type CatalogToken, evmRail } from './evm/evm-rail';
import { solanaRail } from './solana/solana-rail';
import { tronRail } from './tron/tron-rail';
import { UTXO_RAIL } from './utxo/utxo-rail';

/**
 * The adapter bundle of each chain family, in one place: a new family is a new folder (keys and
 * addresses, its CHAINS_FILE section, its follower, its payment URI) and one line here. Nothing else
 * in the module names a family. `catalog` is the provider catalog (the one list of token contracts);
 * the registry passes the providers module's, tests may pass it too (this file stays free of Nest).
 */
export function railAdapters(catalog: readonly CatalogToken[]): RailAdapter[] {
  return [evmRail(catalog), UTXO_RAIL, tronRail(catalog), solanaRail(catalog)];
}
