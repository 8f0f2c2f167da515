import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invoice list's status filter reads the status as of now (a PENDING invoice past its window
 * counts as VOIDED, which needs expires_at): the covering status index also carries expires_at, so
 * the total of a status-filtered list stays an index-only scan.
 */
export class ListCountExpiry1763700900000 implements MigrationInterface {
  name = 'ListCountExpiry1763700900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX invoices_status_cover2_idx ON invoices (organization_id, mode, status, created_at DESC, id DESC) INCLUDE (currency, price_usd, expires_at)`,
    );
    await q.query(`DROP INDEX invoices_status_cover_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX invoices_status_cover_idx ON invoices (organization_id, mode, status, created_at DESC, id DESC) INCLUDE (currency, price_usd)`);
    await q.query(`DROP INDEX invoices_status_cover2_idx`);
  }
}
