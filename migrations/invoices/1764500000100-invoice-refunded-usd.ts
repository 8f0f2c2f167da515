import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invoice's `refunded_usd` (decisions §19): the USD value of its COMPLETED refunds, owned by the
 * invoices module and set by SetInvoiceRefundedCommand in the transaction that completes a refund.
 * A constant default: no table rewrite.
 */
export class InvoiceRefundedUsd1764500000100 implements MigrationInterface {
  name = 'InvoiceRefundedUsd1764500000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN refunded_usd numeric(78, 30) NOT NULL DEFAULT 0 CHECK (refunded_usd >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices DROP COLUMN refunded_usd`);
  }
}
