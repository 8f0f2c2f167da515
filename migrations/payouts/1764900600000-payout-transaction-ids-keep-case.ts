import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payout transfers held by a refund keep their transaction id as the network's rail adapter writes it.
 * Hex ids (EVM, UTXO, Tron) are still lower case, as the adapters normalise them; Solana's signatures are
 * base58, where case matters, so the check that every id is lower case goes.
 */
export class PayoutTransactionIdsKeepCase1764900600000 implements MigrationInterface {
  name = 'PayoutTransactionIdsKeepCase1764900600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refund_payout_transfers DROP CONSTRAINT refund_payout_transfers_tx_hash_check`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refund_payout_transfers ADD CONSTRAINT refund_payout_transfers_tx_hash_check CHECK (tx_hash = lower(tx_hash))`);
  }
}
