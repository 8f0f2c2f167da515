/**
 * The watcher's reads of the watched deposit addresses, as plain statements (no framework imports, so
 * the bench and the plan test explain the very text the service sends).
 */

/**
 * Up to this many watched addresses the watcher loads them and lets the node filter Transfer logs on
 * the `to` topic; above it, it reads every transfer of the range and looks the recipients up (indexed).
 */
export const LOAD_ADDRESSES_MAX = 500;

export const COLUMNS = 'wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at';
/**
 * Still watched at $3 (null watch_until: without end), written as the expression of
 * deposit_addresses_watching_idx so the watched set is an index range: addresses whose window closed
 * are never read, however many there are.
 */
const WATCHED_AT_3 = `COALESCE(watch_until, 'infinity'::timestamptz) > $3`;
/** The watcher's statements (also explained by bench/watcher-cost.ts and test/e2e/rails/watched-lookup.e2e-spec.ts). */
export const WATCHED_UP_TO_SQL = `SELECT ${COLUMNS} FROM deposit_addresses WHERE mode = $1 AND network = $2 AND ${WATCHED_AT_3}
  ORDER BY COALESCE(watch_until, 'infinity'::timestamptz) DESC LIMIT $4`;
export const WATCHED_AMONG_SQL = `SELECT ${COLUMNS} FROM deposit_addresses
  WHERE mode = $1 AND network = $2 AND address = ANY($3::text[]) AND (watch_until IS NULL OR watch_until > $4)`;
/**
 * The wallets to poll on a network whose payment addresses are a wallet and a reference (`<wallet>/<reference>`,
 * Solana), each with the organization that registered it: the mode's active wallets of the family ($4; one
 * per organization, on receiving_wallets_active_family_idx) and the wallets the still-watched addresses pay
 * (the part before the `/`, one index range of the watched set), a few rows out. A wallet registered by
 * another organization is refused, so a wallet has one organization.
 */
export const WATCHED_WALLETS_SQL = `SELECT DISTINCT ON (wallet) wallet, organization_id FROM (
    SELECT first_address AS wallet, organization_id, 0 AS rank FROM receiving_wallets WHERE mode = $1 AND chain_family = $4 AND active
    UNION ALL
    SELECT split_part(address, '/', 1), organization_id, 1 FROM deposit_addresses
     WHERE mode = $1 AND network = $2 AND ${WATCHED_AT_3} AND strpos(address, '/') > 0
  ) w ORDER BY wallet, rank`;
