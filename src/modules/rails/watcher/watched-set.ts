import type { WatchedAddresses } from '../domain/payment-rail';
import type { DepositAddressRow } from '../persistence/deposit-addresses.repository';
import { LOAD_ADDRESSES_MAX } from '../persistence/watched-addresses';
import type { WatcherContext } from './watcher-context';

/**
 * The deposit addresses whose window is open at `now` (the blocks' time for a scan, see watchedAsOf; the
 * clock's now for the mempool): the whole set when small, else resolved by an indexed lookup of the recipients seen.
 */
export async function watchedSet(
  ctx: WatcherContext,
  now: Date = ctx.deps.clock.now(),
): Promise<{ watched: WatchedAddresses; owners: Map<string, DepositAddressRow>; walletOwners: Map<string, string> }> {
  const { mode, network } = ctx.config;
  const { deps } = ctx;
  const owners = new Map<string, DepositAddressRow>();
  // The organization of each polled wallet (families of `<wallet>/<reference>` addresses), filled by accounts().
  const walletOwners = new Map<string, string>();
  const first = await deps.addresses.watchedUpTo(deps.manager, mode, network, now, LOAD_ADDRESSES_MAX + 1);
  const few = first.length <= LOAD_ADDRESSES_MAX;
  if (few) for (const row of first) owners.set(row.address, row);
  const watched: WatchedAddresses = {
    addresses: few ? new Set(owners.keys()) : null,
    resolve: async (candidates) => {
      for (const row of await deps.addresses.watchedAmong(deps.manager, mode, network, candidates, now)) owners.set(row.address, row);
      return new Set(owners.keys());
    },
    accounts: async () => {
      for (const row of await deps.addresses.watchedWallets(deps.manager, mode, network, ctx.config.family, now))
        walletOwners.set(row.wallet, row.organization_id);
      return [...walletOwners.keys()];
    },
    accountOwner: (account) => walletOwners.get(account),
  };
  return { watched, owners, walletOwners };
}
