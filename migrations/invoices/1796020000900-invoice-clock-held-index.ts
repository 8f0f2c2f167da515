import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `invoices_clock_held_idx`: the invoices a reorg's hold keeps open, by organization and mode. The list's
 * status as of now reads a scope's held invoices through it once per statement (nearly always none), so the
 * covering status indexes need not carry `clock_held_until` and a status-filtered page and its total stay
 * index-only scans. Partial: it holds only held invoices.
 */
export class InvoiceClockHeldIndex1796020000900 implements MigrationInterface {
  name = 'InvoiceClockHeldIndex1796020000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX invoices_clock_held_idx ON invoices (organization_id, mode, clock_held_until) WHERE clock_held_until IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX invoices_clock_held_idx`);
  }
}
