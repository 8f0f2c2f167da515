import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chain reversals (a reorg taking a payment's transaction out of the canonical chain, and the same
 * transaction mined again later):
 *
 * - `payments.off_chain_at`: when a rail reported the payment's transaction in no block of the
 *   canonical chain (the payment was CANCELLED then). Only such a payment may be reinstated when its
 *   transaction is mined again; a payment cancelled for any other reason stays final. Cleared when
 *   the payment is reinstated.
 * - `chain_transfers.recipient` and `units`: what the transfer moved and where, so a transfer the
 *   rescan finds again in another block (possibly at another log index) is matched to the one the
 *   reorg put in doubt, and adopts its payment instead of making a second one. Null on rows written
 *   before this migration (they match on transaction, invoice and provider).
 * - invoice substatus `PAYMENT_REVERSED`: a COMPLETED invoice (it stays COMPLETED, a final state)
 *   whose completed payments a reorg reversed so that they no longer cover it.
 */
export class ChainReversals1763703000000 implements MigrationInterface {
  name = 'ChainReversals1763703000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payments ADD COLUMN off_chain_at timestamptz NULL`);
    await q.query(`ALTER TABLE chain_transfers ADD COLUMN recipient text NULL, ADD COLUMN units numeric(78, 0) NULL`);
    await q.query(`CREATE INDEX chain_transfers_tx_idx ON chain_transfers (mode, network, tx_hash)`);
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_substatus_check`);
    await q.query(`ALTER TABLE invoices ADD CONSTRAINT invoices_substatus_check
      CHECK (substatus IN ('PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID', 'EXPIRED', 'PAID_LATE', 'PAYMENT_REVERSED'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices DROP CONSTRAINT invoices_substatus_check`);
    await q.query(`UPDATE invoices SET substatus = NULL WHERE substatus = 'PAYMENT_REVERSED'`);
    await q.query(`ALTER TABLE invoices ADD CONSTRAINT invoices_substatus_check
      CHECK (substatus IN ('PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID', 'EXPIRED', 'PAID_LATE'))`);
    await q.query(`DROP INDEX chain_transfers_tx_idx`);
    await q.query(`ALTER TABLE chain_transfers DROP COLUMN recipient, DROP COLUMN units`);
    await q.query(`ALTER TABLE payments DROP COLUMN off_chain_at`);
  }
}
