import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each held payout transfer keeps what it paid (`recipient`: the payout's address and asset, `<address> <token
 * contract or mint>`, or `<address> native` for the coin). EVM and Tron
 * name a token transfer by its log's index, which is counted across the block: a reorg that puts the
 * transaction in another block renames its transfers, and a transfer held under its old name would then
 * look free under its new one. With the recipient kept, a held transfer of an asset to an address whose
 * name no longer names any of the transaction's transfers of it there still holds one of them
 * (PayoutTransfers.take).
 *
 * Rows held before are given their refund's address and asset. Down drops the column.
 */
export class PayoutTransferRecipients1796016000000 implements MigrationInterface {
  name = 'PayoutTransferRecipients1796016000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refund_payout_transfers ADD COLUMN recipient text`);
    await q.query(
      `UPDATE refund_payout_transfers t SET recipient = r.address || ' ' || COALESCE(r.token_contract, 'native') FROM refunds r WHERE r.id = t.refund_id AND r.address IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refund_payout_transfers DROP COLUMN recipient`);
  }
}
