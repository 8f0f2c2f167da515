import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A held payout transfer is unique by its name and what it paid: (network, transaction, output, recipient)
 * instead of (network, transaction, output).
 *
 * EVM and Tron name a token transfer by its log's index, counted across the block. When a reorg puts a
 * transaction in another block its transfers are renamed, and the name a payout holds may come to name
 * another transfer of the same transaction, paid to another address. That address's payout then found its
 * own transfer free (holds for other recipients are left out when it picks) but could not take it: the
 * old key made the name taken, and the payout was refused as paid by another's transfer. A transfer has one
 * recipient, so keying holds by recipient too still lets one transfer pay one payout. Rows from before
 * recipients were kept (null) stay unique by their name alone.
 *
 * Down puts the old key back; it fails while two payouts hold one name for different recipients.
 */
export class PayoutTransferKeyRecipient1796020000100 implements MigrationInterface {
  name = 'PayoutTransferKeyRecipient1796020000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refund_payout_transfers DROP CONSTRAINT refund_payout_transfers_pkey`);
    await q.query(`CREATE UNIQUE INDEX refund_payout_transfers_key ON refund_payout_transfers (network, tx_hash, output, coalesce(recipient, ''))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX refund_payout_transfers_key`);
    await q.query(`ALTER TABLE refund_payout_transfers ADD PRIMARY KEY (network, tx_hash, output)`);
  }
}
