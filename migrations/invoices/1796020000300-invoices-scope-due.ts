import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invoice sweeper reads expired invoices by organization and mode (shared/db/fair-batch.ts, `pool`):
 * `invoices_scope_due_idx` on `(organization_id, mode, expires_at, id)` of the PENDING invoices with an expiry
 * replaces `invoices_due_idx` on `(expires_at)`, which only the sweeper read. Each pass numbered every expired
 * invoice before taking each organization's share, so one merchant's burst of abandoned invoices cost every pass
 * in proportion to its size until it was swept; now a pass costs a few index descents per organization.
 */
export class InvoicesScopeDue1796020000300 implements MigrationInterface {
  name = 'InvoicesScopeDue1796020000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX invoices_scope_due_idx ON invoices (organization_id, mode, expires_at, id) WHERE status = 'PENDING' AND expires_at IS NOT NULL`,
    );
    await q.query(`DROP INDEX invoices_due_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX invoices_due_idx ON invoices (expires_at) WHERE status = 'PENDING' AND expires_at IS NOT NULL`);
    await q.query(`DROP INDEX invoices_scope_due_idx`);
  }
}
