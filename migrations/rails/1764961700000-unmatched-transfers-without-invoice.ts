import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unmatched transfers without an invoice: money that reached a merchant's Solana wallet in a transaction
 * carrying no reference of a payment address the service handed out (typed by hand, sent from an exchange)
 * is kept for the organization that registered the wallet, never dropped (decisions §24). No invoice is
 * known for it, so `invoice_id` becomes nullable; the provider is still known (what was sent: SOL or a
 * configured mint), so `provider_id` stays required.
 *
 * - Existing rows all have an invoice and keep it; nothing about them changes.
 * - A row without an invoice cannot be RESOLVED (no payment can be recorded for it): a CHECK says so, so
 *   such a row is OPEN for good (the retry answers 400 `transfer_without_invoice`).
 * - `final_checked`: on chains whose blocks have no hash the reorg check could compare (Solana), a kept
 *   transfer's transaction is asked for again once the commitment covers its slot; one the node no longer
 *   knows (its fork died) is put in doubt (`orphaned`). Rows kept before are taken as checked (true); new
 *   rows start unchecked (EVM, UTXO and Tron rows are never asked: their reorgs are found by block hashes).
 * - `receiving_wallets_active_family_idx`: the watcher reads the mode's active wallets of the family every
 *   step (it polls them whether or not an invoice is open), one index range.
 *
 * Down deletes the rows without an invoice (the old table cannot hold them) before making the column
 * required again.
 */
export class UnmatchedTransfersWithoutInvoice1764961700000 implements MigrationInterface {
  name = 'UnmatchedTransfersWithoutInvoice1764961700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE unattributed_transfers ALTER COLUMN invoice_id DROP NOT NULL`);
    await q.query(
      `ALTER TABLE unattributed_transfers ADD CONSTRAINT unattributed_transfers_invoice_or_open_check CHECK (invoice_id IS NOT NULL OR status = 'OPEN')`,
    );
    await q.query(`ALTER TABLE unattributed_transfers ADD COLUMN final_checked boolean NOT NULL DEFAULT true`);
    await q.query(`ALTER TABLE unattributed_transfers ALTER COLUMN final_checked SET DEFAULT false`);
    await q.query(
      `CREATE INDEX unattributed_transfers_unchecked_idx ON unattributed_transfers (mode, network, block_number) WHERE status = 'OPEN' AND NOT final_checked AND NOT orphaned`,
    );
    await q.query(`CREATE INDEX receiving_wallets_active_family_idx ON receiving_wallets (mode, chain_family) WHERE active`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX receiving_wallets_active_family_idx`);
    await q.query(`DROP INDEX unattributed_transfers_unchecked_idx`);
    await q.query(`ALTER TABLE unattributed_transfers DROP COLUMN final_checked`);
    await q.query(`ALTER TABLE unattributed_transfers DROP CONSTRAINT unattributed_transfers_invoice_or_open_check`);
    await q.query(`DELETE FROM unattributed_transfers WHERE invoice_id IS NULL`);
    await q.query(`ALTER TABLE unattributed_transfers ALTER COLUMN invoice_id SET NOT NULL`);
  }
}
