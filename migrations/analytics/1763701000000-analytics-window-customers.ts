import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many customers each kept day window holds (customers.unique of the day periods), kept as a
 * number instead of counted per dashboard call: a busy organization's year has tens of thousands
 * of customers, and counting them at every call made the dashboard O(customers).
 *
 * analytics_window_customers: per (organization, mode, span, prev) the number of rows of
 * analytics_customer_windows with invoices_count > 0. Statement-level triggers on
 * analytics_customer_windows keep it, in the same transaction as the statement that changes those
 * rows, whoever runs it: the invoice triggers (one row per window holding the invoice's day),
 * analytics_roll_windows (the days moving in and out, or the whole build) and analytics_rebuild
 * (which deletes the windows, taking the counts to zero). A statement adds the rows it leaves
 * counted and takes away the rows it found counted, so it does not matter which code wrote it.
 * The count row is locked after the window rows, as the other rollups lock windows last. TRUNCATE
 * of analytics_customer_windows is not followed (analytics_rebuild deletes instead).
 */
export class AnalyticsWindowCustomers1763701000000 implements MigrationInterface {
  name = 'AnalyticsWindowCustomers1763701000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analytics_window_customers (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        span            integer NOT NULL,
        prev            boolean NOT NULL,
        customers_count bigint NOT NULL,
        PRIMARY KEY (organization_id, mode, span, prev)
      )`);
    // One function for the three triggers (a trigger with transition tables has one event); each
    // branch reads only the transition tables its event has.
    await q.query(`
      CREATE FUNCTION analytics_customer_windows_counted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO analytics_window_customers AS c (organization_id, mode, span, prev, customers_count)
          SELECT organization_id, mode, span, prev, count(*) FROM new_rows WHERE invoices_count > 0
           GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (organization_id, mode, span, prev) DO UPDATE SET customers_count = c.customers_count + EXCLUDED.customers_count;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO analytics_window_customers AS c (organization_id, mode, span, prev, customers_count)
          SELECT organization_id, mode, span, prev, sum(change) FROM (
            SELECT organization_id, mode, span, prev, 1 AS change FROM new_rows WHERE invoices_count > 0
            UNION ALL
            SELECT organization_id, mode, span, prev, -1 FROM old_rows WHERE invoices_count > 0
          ) x
           GROUP BY 1, 2, 3, 4 HAVING sum(change) <> 0 ORDER BY 1, 2, 3, 4
          ON CONFLICT (organization_id, mode, span, prev) DO UPDATE SET customers_count = c.customers_count + EXCLUDED.customers_count;
        ELSE
          INSERT INTO analytics_window_customers AS c (organization_id, mode, span, prev, customers_count)
          SELECT organization_id, mode, span, prev, -count(*) FROM old_rows WHERE invoices_count > 0
           GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (organization_id, mode, span, prev) DO UPDATE SET customers_count = c.customers_count + EXCLUDED.customers_count;
        END IF;
        RETURN NULL;
      END $$`);
    // Creating the triggers locks analytics_customer_windows against writers until this migration
    // commits: writers in flight finish first, later ones run with the triggers, so the backfill
    // below counts exactly the rows the triggers then keep counting.
    await q.query(`
      CREATE TRIGGER analytics_customer_windows_insert AFTER INSERT ON analytics_customer_windows
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_customer_windows_counted()`);
    await q.query(`
      CREATE TRIGGER analytics_customer_windows_update AFTER UPDATE ON analytics_customer_windows
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_customer_windows_counted()`);
    await q.query(`
      CREATE TRIGGER analytics_customer_windows_delete AFTER DELETE ON analytics_customer_windows
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_customer_windows_counted()`);
    await q.query(`
      INSERT INTO analytics_window_customers (organization_id, mode, span, prev, customers_count)
      SELECT organization_id, mode, span, prev, count(*) FROM analytics_customer_windows WHERE invoices_count > 0
       GROUP BY 1, 2, 3, 4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER analytics_customer_windows_delete ON analytics_customer_windows`);
    await q.query(`DROP TRIGGER analytics_customer_windows_update ON analytics_customer_windows`);
    await q.query(`DROP TRIGGER analytics_customer_windows_insert ON analytics_customer_windows`);
    await q.query(`DROP FUNCTION analytics_customer_windows_counted()`);
    await q.query(`DROP TABLE analytics_window_customers`);
  }
}
