import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How far a key's addresses have been used, for its gap (`unused_gap` on the wallet: addresses issued
 * after the last one that received money) and the `wallet.gap_warning` event.
 *
 * - `used_index`: the highest receive index of the key whose address received a transfer the watcher
 *   recorded (null: none yet). Raised by the watcher in the transaction that keeps the transfer.
 * - `gap_warned`: the warning was sent for the current gap; cleared when an address receives money, so
 *   the next time the gap grows past the limit warns again.
 * Existing keys start from their recorded transfers (chain_transfers' recipients).
 */
export class AccountKeyUsage1764100000100 implements MigrationInterface {
  name = 'AccountKeyUsage1764100000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE account_key_counters ADD COLUMN used_index integer NULL CHECK (used_index >= 0)`);
    await q.query(`ALTER TABLE account_key_counters ADD COLUMN gap_warned boolean NOT NULL DEFAULT false`);
    await q.query(`
      UPDATE account_key_counters c SET used_index = u.top
        FROM (SELECT w.chain_family, w.key_fingerprint, max(d.derivation_index) AS top
                FROM chain_transfers t
                JOIN deposit_addresses d ON d.mode = t.mode AND d.network = t.network AND d.address = t.recipient
                JOIN receiving_wallets w ON w.id = d.wallet_id
               WHERE NOT t.cancelled AND w.key_fingerprint IS NOT NULL
               GROUP BY w.chain_family, w.key_fingerprint) u
       WHERE c.chain_family = u.chain_family AND c.key_fingerprint = u.key_fingerprint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE account_key_counters DROP COLUMN gap_warned`);
    await q.query(`ALTER TABLE account_key_counters DROP COLUMN used_index`);
  }
}
