import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair refund checks (decisions §22): `checked_at` is when the refunds worker last looked at a
 * refund it could not finish (a payout still short of its confirmations or not on the chain yet, a
 * claim not yet past its time at its organization's now); the worker takes each organization's
 * rows least recently checked first, so rows that never finish go to the back of their line.
 * The SENT index now serves that per-organization order (organization and mode, then the order).
 */
export class RefundChecksFair1764700100000 implements MigrationInterface {
  name = 'RefundChecksFair1764700100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refunds ADD COLUMN checked_at timestamptz`);
    await q.query(`DROP INDEX refunds_sent_idx`);
    await q.query(`CREATE INDEX refunds_sent_fair_idx ON refunds (organization_id, mode, checked_at NULLS FIRST, sent_at, id) WHERE status = 'SENT'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX refunds_sent_fair_idx`);
    await q.query(`CREATE INDEX refunds_sent_idx ON refunds (sent_at) WHERE status = 'SENT'`);
    await q.query(`ALTER TABLE refunds DROP COLUMN checked_at`);
  }
}
