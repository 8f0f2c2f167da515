import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lists' price_usd indexes carry the other filter columns and the page order (created_at, id),
 * so whichever index a list statement's plan picks for a price range, the total and the page's ids
 * are index-only scans. List statements are prepared, and a prepared statement's generic plan
 * cannot see the filter's values: it tends to take the price range for the most selective filter,
 * and with the old indexes that meant reading a table page per match.
 */
export class ListPriceCover1763701200000 implements MigrationInterface {
  name = 'ListPriceCover1763701200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX invoices_price_usd_cover_idx ON invoices (organization_id, mode, price_usd) INCLUDE (status, expires_at, currency, created_at, id)`,
    );
    await q.query(`DROP INDEX invoices_price_usd_idx`);
    await q.query(
      `CREATE INDEX payments_price_usd_cover_idx ON payments (organization_id, mode, price_usd) INCLUDE (status, provider_id, currency, created_at, id)`,
    );
    await q.query(`DROP INDEX payments_price_usd_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX invoices_price_usd_idx ON invoices (organization_id, mode, price_usd)`);
    await q.query(`DROP INDEX invoices_price_usd_cover_idx`);
    await q.query(`CREATE INDEX payments_price_usd_idx ON payments (organization_id, mode, price_usd)`);
    await q.query(`DROP INDEX payments_price_usd_cover_idx`);
  }
}
