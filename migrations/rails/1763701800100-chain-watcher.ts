import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the chain watchers remember, per network and mode (one watcher at a time holds the network's
 * advisory lock; these rows are its memory across restarts and takeovers):
 *
 * - `chain_cursors`: the last block whose transfers were all recorded (number and hash). A restart
 *   resumes after it; a stored hash that no longer matches the chain at that height is a reorg.
 * - `chain_blocks`: hashes of recently processed blocks, to find the common ancestor after a reorg;
 *   kept for the network's finality depth.
 * - `chain_transfers`: every transfer into a deposit address that became a payment, with the block it
 *   was seen in and the confirmations last reported. The watcher keeps counting their confirmations,
 *   and after a reorg cancels those whose transaction left the canonical chain. `orphaned` marks the
 *   ones a reorg put in doubt until the rescan finds them again.
 *
 * These are system tables of the watcher, not tenant data: the payment each transfer became belongs
 * to an organization and mode (organization_id is kept beside it for the report).
 */
export class ChainWatcher1763701800100 implements MigrationInterface {
  name = 'ChainWatcher1763701800100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chain_cursors (
        mode          text NOT NULL CHECK (mode IN ('test', 'live')),
        network       text NOT NULL,
        block_number  bigint NOT NULL CHECK (block_number >= -1),
        block_hash    text NOT NULL,
        updated_at    timestamptz NOT NULL,
        PRIMARY KEY (mode, network)
      )`);
    await q.query(`
      CREATE TABLE chain_blocks (
        mode          text NOT NULL,
        network       text NOT NULL,
        block_number  bigint NOT NULL,
        block_hash    text NOT NULL,
        PRIMARY KEY (mode, network, block_number)
      )`);
    await q.query(`
      CREATE TABLE chain_transfers (
        mode                    text NOT NULL CHECK (mode IN ('test', 'live')),
        network                 text NOT NULL,
        idempotency_key         text NOT NULL,
        organization_id         text NOT NULL REFERENCES organizations(id),
        invoice_id              text NOT NULL,
        provider_id             text NOT NULL,
        payment_id              text NOT NULL,
        tx_hash                 text NOT NULL,
        block_number            bigint NOT NULL,
        block_hash              text NOT NULL,
        confirmations           integer NOT NULL,
        required_confirmations  integer NOT NULL,
        orphaned                boolean NOT NULL DEFAULT false,
        cancelled               boolean NOT NULL DEFAULT false,
        created_at              timestamptz NOT NULL,
        updated_at              timestamptz NOT NULL,
        PRIMARY KEY (mode, network, idempotency_key)
      )`);
    await q.query(`CREATE INDEX chain_transfers_recent_idx ON chain_transfers (mode, network, block_number) WHERE NOT cancelled`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chain_transfers`);
    await q.query(`DROP TABLE chain_blocks`);
    await q.query(`DROP TABLE chain_cursors`);
  }
}
