import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `invoices.clock_held_until`: set when a chain reorg takes an invoice's payment off the chain and the invoice
 * falls back to PENDING; until then the clock does not void it, so the transaction mined again can still pay it
 * (docs/timing.md, "Held after a reorg"). Null on every other invoice. A nullable column without a default:
 * adding it rewrites nothing.
 */
export class InvoiceClockHold1796020000800 implements MigrationInterface {
  name = 'InvoiceClockHold1796020000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ADD COLUMN clock_held_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices DROP COLUMN clock_held_until`);
  }
}
