import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One address-index counter per account key, shared by every organization and mode that registers
 * the key, so no address is ever handed out twice (two organizations, or test and live of one,
 * registering the same key counted on their own and collided).
 *
 * - `receiving_wallets.key_fingerprint`: SHA-256 of the chain family, the public key and the chain
 *   code (the adapter's `fingerprint`), the same for every serialization of the key (another parent
 *   fingerprint, child number or version bytes). It replaces `xpub_fingerprint`, a hash of the text
 *   as sent, which told two exports of one key apart. The keys are sealed with SECRETS_KEY, so SQL
 *   cannot compute it: rows written before this migration get it at the next start (the same step
 *   that seals keys), which also raises their counters to the highest index any of the key's
 *   wallets handed out. Until then allocation computes it from the opened key.
 * - `account_key_counters`: the next unused index of the receive chain per key. It belongs to no
 *   organization (like the watcher's tables): a key is the merchant's wallet, whoever registers it.
 *   Allocation takes the next index with one upsert that locks the key's row, so concurrent
 *   allocations from any organization queue there. `receiving_wallets.next_index` stays as the
 *   wallet's own record (the counter after its last allocation).
 */
export class AccountKeyCounters1764000200000 implements MigrationInterface {
  name = 'AccountKeyCounters1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets ADD COLUMN key_fingerprint text NULL CHECK (key_fingerprint ~ '^[0-9a-f]{64}$')`);
    await q.query(`DROP INDEX receiving_wallets_key_idx`);
    await q.query(`ALTER TABLE receiving_wallets DROP COLUMN xpub_fingerprint`);
    await q.query(`CREATE INDEX receiving_wallets_key_idx ON receiving_wallets (chain_family, key_fingerprint)`);
    await q.query(`CREATE INDEX receiving_wallets_unfingerprinted_idx ON receiving_wallets (id) WHERE key_fingerprint IS NULL`);
    await q.query(`
      CREATE TABLE account_key_counters (
        chain_family     text NOT NULL,
        key_fingerprint  text NOT NULL,
        next_index       integer NOT NULL CHECK (next_index >= 0),
        updated_at       timestamptz NOT NULL,
        PRIMARY KEY (chain_family, key_fingerprint)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_key_counters`);
    await q.query(`DROP INDEX receiving_wallets_unfingerprinted_idx`);
    await q.query(`DROP INDEX receiving_wallets_key_idx`);
    // The old column hashed the key's text, which SQL cannot read (sealed): the new fingerprint stands in.
    await q.query(`ALTER TABLE receiving_wallets ADD COLUMN xpub_fingerprint text NULL`);
    await q.query(`UPDATE receiving_wallets SET xpub_fingerprint = COALESCE(key_fingerprint, id)`);
    await q.query(`ALTER TABLE receiving_wallets ALTER COLUMN xpub_fingerprint SET NOT NULL`);
    await q.query(`ALTER TABLE receiving_wallets DROP COLUMN key_fingerprint`);
    await q.query(`CREATE INDEX receiving_wallets_key_idx ON receiving_wallets (mode, chain_family, xpub_fingerprint)`);
  }
}
