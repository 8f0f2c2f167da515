import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many currency changes payers (calls without a key) made to an invoice in the current window
 * (domain/currency-change.ts): one row per invoice a payer changed, written under the invoice's
 * row lock. Kept apart from `invoices` so the hot invoice rows and their indexes do not change.
 */
export class InvoiceCurrencyChanges1763701600000 implements MigrationInterface {
  name = 'InvoiceCurrencyChanges1763701600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invoice_currency_changes (
        invoice_id        text PRIMARY KEY REFERENCES invoices(id) ON DELETE CASCADE,
        organization_id   text NOT NULL,
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        window_started_at timestamptz NOT NULL,
        changes           integer NOT NULL CHECK (changes > 0)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invoice_currency_changes`);
  }
}
