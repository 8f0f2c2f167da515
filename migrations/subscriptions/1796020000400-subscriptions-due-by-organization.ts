import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scheduler reads due subscriptions by organization (persistence/due-subscriptions-sql.ts): in each
 * organization's mode, the never-failed ones by due time (`subscriptions_untried_due`) and the failed ones by
 * their last failure (`subscriptions_tried_due`). They replace `subscriptions_due` on `(next_invoice_at)`,
 * which only the scheduler read; a subscription has an entry in one of the two, as it had one there.
 */
export class SubscriptionsDueByOrganization1796020000400 implements MigrationInterface {
  name = 'SubscriptionsDueByOrganization1796020000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX subscriptions_untried_due ON subscriptions (organization_id, mode, next_invoice_at, id)
        WHERE next_invoice_at IS NOT NULL AND attempted_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX subscriptions_tried_due ON subscriptions (organization_id, mode, attempted_at, next_invoice_at, id)
        WHERE next_invoice_at IS NOT NULL AND attempted_at IS NOT NULL`,
    );
    await q.query(`DROP INDEX subscriptions_due`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX subscriptions_due ON subscriptions (next_invoice_at) WHERE next_invoice_at IS NOT NULL`);
    await q.query(`DROP INDEX subscriptions_tried_due`);
    await q.query(`DROP INDEX subscriptions_untried_due`);
  }
}
