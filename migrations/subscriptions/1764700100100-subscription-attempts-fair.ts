import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair subscription periods (decisions §22): `attempted_at` is when the scheduler last failed to
 * issue a subscription's due period invoice (an invoice that cannot be priced now). The scheduler
 * takes each organization's due subscriptions never failed first, then the least recently failed,
 * so subscriptions that keep failing go to the back of their organization's line.
 * `subscription_invoices.checked_at` is when the scheduler last asked for an open period invoice's
 * payment: each organization's open ones are followed least recently checked first, so invoices that
 * stay unpaid for days go to the back and the ones after them are followed too.
 */
export class SubscriptionAttemptsFair1764700100100 implements MigrationInterface {
  name = 'SubscriptionAttemptsFair1764700100100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE subscriptions ADD COLUMN attempted_at timestamptz`);
    await q.query(`ALTER TABLE subscription_invoices ADD COLUMN checked_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE subscription_invoices DROP COLUMN checked_at`);
    await q.query(`ALTER TABLE subscriptions DROP COLUMN attempted_at`);
  }
}
