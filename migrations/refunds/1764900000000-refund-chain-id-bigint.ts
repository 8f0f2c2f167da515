import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds paid out on Tron: a refund keeps the chain id of its payout rail, and Tron's test chains are
 * numbered past a 32-bit integer (Nile 3448148188, Shasta 2494104990), so `chain_id` becomes bigint.
 */
export class RefundChainIdBigint1764900000000 implements MigrationInterface {
  name = 'RefundChainIdBigint1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ALTER COLUMN chain_id TYPE bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ALTER COLUMN chain_id TYPE integer`);
  }
}
