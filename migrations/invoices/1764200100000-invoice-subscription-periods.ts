import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoices of a subscription's period (decisions §20) carry `subscription_id`, `period_start` and
 * `period_end`; other invoices leave them null. The unique index makes a period's invoice exist once
 * whatever the number of instances issuing it: a second insert for the same subscription and period
 * start fails, and the invoice create command answers the first one's id.
 */
export class InvoiceSubscriptionPeriods1764200100000 implements MigrationInterface {
  name = 'InvoiceSubscriptionPeriods1764200100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN subscription_id text, ADD COLUMN period_start timestamptz, ADD COLUMN period_end timestamptz`);
    await q.query(`CREATE UNIQUE INDEX invoices_subscription_period ON invoices (subscription_id, period_start) WHERE subscription_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX invoices_subscription_period`);
    await q.query(`ALTER TABLE invoices DROP COLUMN subscription_id, DROP COLUMN period_start, DROP COLUMN period_end`);
  }
}
