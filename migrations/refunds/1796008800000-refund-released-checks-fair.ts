import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair watching of payouts taken back after the grace (decisions §22): `released_checked_at` is when
 * the payouts worker last asked the node about such a payout and got no verdict (a transaction the node
 * does not know). The worker takes each organization's released payouts least recently checked first,
 * at most WORKER_ORG_BATCH of one organization's mode per pass, so one organization's payouts that are
 * never mined cannot fill every pass for the week they are watched while another's goes unlooked at.
 * The index serves that per-organization order.
 */
export class RefundReleasedChecksFair1796008800000 implements MigrationInterface {
  name = 'RefundReleasedChecksFair1796008800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ADD COLUMN released_checked_at timestamptz`);
    await q.query(`DROP INDEX refunds_released_idx`);
    await q.query(
      `CREATE INDEX refunds_released_fair_idx ON refunds (organization_id, mode, released_checked_at NULLS FIRST, released_at, id) WHERE released_tx_hash IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX refunds_released_fair_idx`);
    await q.query(`CREATE INDEX refunds_released_idx ON refunds (released_at) WHERE released_tx_hash IS NOT NULL`);
    await q.query(`ALTER TABLE refunds DROP COLUMN released_checked_at`);
  }
}
