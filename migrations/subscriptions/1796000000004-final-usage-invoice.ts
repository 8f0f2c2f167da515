import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A subscription paid in ADVANCE and canceled at period end bills the usage of its last period in a final
 * invoice (docs/subscriptions.md, "Cancel"): its row in `subscription_invoices` is marked `final_usage`
 * (usage lines only, no base line). Existing rows are regular period invoices.
 */
export class FinalUsageInvoice1796000000004 implements MigrationInterface {
  name = 'FinalUsageInvoice1796000000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE subscription_invoices ADD COLUMN final_usage boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE subscription_invoices DROP COLUMN final_usage`);
  }
}
