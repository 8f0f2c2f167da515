import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A period is recorded when its invoice falls due, before the invoice is made: `invoice_id` stays
 * null until the invoice is issued. A period whose invoice could not be made (`attempts`, the last
 * `last_error`) is tried again from `retry_at` on, while the subscription moves on to its later
 * periods. Rows written before this had their invoice already: they keep it.
 */
export class PeriodInvoiceAttempts1764600000310 implements MigrationInterface {
  name = 'PeriodInvoiceAttempts1764600000310';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE subscription_invoices ALTER COLUMN invoice_id DROP NOT NULL`);
    await q.query(`
      ALTER TABLE subscription_invoices
        ADD COLUMN attempts   integer NOT NULL DEFAULT 0,
        ADD COLUMN last_error text,
        ADD COLUMN retry_at   timestamptz`);
    await q.query(`CREATE INDEX subscription_invoices_unissued ON subscription_invoices (retry_at) WHERE invoice_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX subscription_invoices_unissued`);
    await q.query(`DELETE FROM subscription_invoices WHERE invoice_id IS NULL`);
    await q.query(`ALTER TABLE subscription_invoices DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN retry_at`);
    await q.query(`ALTER TABLE subscription_invoices ALTER COLUMN invoice_id SET NOT NULL`);
  }
}
