import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transfers into deposit addresses that the payments module refused to record (the provider disabled
 * after its address was handed out, the invoice gone, ...). The watcher used to log them and move its
 * cursor past them, so money that arrived was never shown. Now each is kept here, in the transaction
 * that moves the cursor past its block, and the merchant lists and retries it (GET /rails/unmatched,
 * POST /rails/unmatched/{id}/retry).
 *
 * - One row per chain transfer (`idempotency_key`, the payment's key `<network>:<tx_hash>:<log_index|native>`,
 *   unique per network and mode): a rescan of the range updates it instead of adding another.
 * - `amount` in the provider's currency (numeric, exact), `units` in the smallest unit; `happened_at`
 *   is the block's time as the chain reports it.
 * - `status` OPEN until a retry records the payment (`payment_id`, `resolved_at`): RESOLVED.
 * - `orphaned`: a reorganization took its block away; it is not retried until a rescan finds it again.
 */
export class UnattributedTransfers1764000210000 implements MigrationInterface {
  name = 'UnattributedTransfers1764000210000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE unattributed_transfers (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        network          text NOT NULL,
        idempotency_key  text NOT NULL,
        address          text NOT NULL,
        invoice_id       text NOT NULL,
        provider_id      text NOT NULL,
        currency         text NOT NULL,
        tx_hash          text NOT NULL,
        log_index        integer NULL,
        block_number     bigint NOT NULL,
        block_hash       text NOT NULL,
        happened_at      timestamptz NOT NULL,
        units            numeric(78, 0) NOT NULL CHECK (units > 0),
        amount           numeric(78, 30) NOT NULL CHECK (amount > 0),
        status           text NOT NULL CHECK (status IN ('OPEN', 'RESOLVED')),
        reason_code      text NOT NULL,
        reason           text NOT NULL,
        attempts         integer NOT NULL CHECK (attempts >= 1),
        orphaned         boolean NOT NULL DEFAULT false,
        payment_id       text NULL,
        resolved_at      timestamptz NULL,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        UNIQUE (mode, network, idempotency_key),
        CHECK ((status = 'RESOLVED') = (payment_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX unattributed_transfers_scope_idx ON unattributed_transfers (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX unattributed_transfers_status_idx ON unattributed_transfers (organization_id, mode, status, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX unattributed_transfers_block_idx ON unattributed_transfers (mode, network, block_number) WHERE status = 'OPEN'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE unattributed_transfers`);
  }
}
