import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An invoice item's `description`: what the line charges, in words, where the service wrote one (a
 * subscription's period invoice names the plan, the metric, the quantity and the period). Nullable
 * with no default: no table rewrite, and every existing item reads as before.
 */
export class InvoiceItemDescription1764800000000 implements MigrationInterface {
  name = 'InvoiceItemDescription1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoice_items ADD COLUMN description text CHECK (char_length(description) <= 1000)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoice_items DROP COLUMN description`);
  }
}
