import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subscriptions workers read period invoices by organization (persistence/period-batches-sql.ts): the
 * periods to issue by their retry time (`subscription_invoices_unissued_scope`, replacing
 * `subscription_invoices_unissued` on `(retry_at)`) and the issued ones still open by their last check
 * (`subscription_invoices_open_scope`, replacing `subscription_invoices_open` on `(organization_id, mode)`,
 * which also held the periods not yet issued). Only those two batches read the indexes they replace.
 */
export class PeriodBatchesByOrganization1796020000500 implements MigrationInterface {
  name = 'PeriodBatchesByOrganization1796020000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX subscription_invoices_unissued_scope ON subscription_invoices (organization_id, mode, retry_at, created_at, subscription_id, period_start)
        WHERE invoice_id IS NULL`,
    );
    await q.query(
      `CREATE INDEX subscription_invoices_open_scope
          ON subscription_invoices (organization_id, mode, checked_at NULLS FIRST, created_at, subscription_id, period_start)
        WHERE outcome IS NULL AND invoice_id IS NOT NULL`,
    );
    await q.query(`DROP INDEX subscription_invoices_unissued`);
    await q.query(`DROP INDEX subscription_invoices_open`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX subscription_invoices_open ON subscription_invoices (organization_id, mode) WHERE outcome IS NULL`);
    await q.query(`CREATE INDEX subscription_invoices_unissued ON subscription_invoices (retry_at) WHERE invoice_id IS NULL`);
    await q.query(`DROP INDEX subscription_invoices_open_scope`);
    await q.query(`DROP INDEX subscription_invoices_unissued_scope`);
  }
}
