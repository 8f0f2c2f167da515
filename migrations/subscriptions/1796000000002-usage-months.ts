import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each subscription's latest usage event of each month (`usage_months`), so the retention job decides
 * whether a month of usage may go without reading its events (docs/subscriptions.md, "Retention"). Its check
 * runs twice before a drop, the second time with `usage_events` locked against every write: over the events
 * themselves that was a scan of a whole month (millions of rows) while no organization could record usage.
 *
 * - One row per subscription and month (the UTC month of the events' `timestamp`, as the partitions), its
 *   `last_usage` the latest `timestamp` stored in it; events are never removed but with their month, whose
 *   rows the job deletes in the dropping transaction.
 * - Kept by the trigger function that keeps `usage_totals` (UsageTotals1796000000000), replaced here, in the
 *   insert's own statement and transaction.
 * - `usage_events` is locked against writes while this commits (SHARE ROW EXCLUSIVE: an insert still open
 *   runs the function as it was), so every event is either committed before, and read by the next migration's
 *   fill, or stored after, and kept by the new function.
 *
 * Down puts the function back as it was and drops the table.
 */
export class UsageMonths1796000000002 implements MigrationInterface {
  name = 'UsageMonths1796000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE usage_events IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`
      CREATE TABLE usage_months (
        month            timestamptz NOT NULL,
        subscription_id  text NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        last_usage       timestamptz NOT NULL,
        PRIMARY KEY (month, subscription_id)
      )`);
    await q.query(`
      CREATE OR REPLACE FUNCTION usage_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_totals AS t (subscription_id, metric_key, sum, max, count)
        SELECT subscription_id, metric_key, sum(value), max(value), count(*) FROM added GROUP BY subscription_id, metric_key
        ON CONFLICT (subscription_id, metric_key) DO UPDATE
          SET sum = t.sum + excluded.sum, max = greatest(t.max, excluded.max), count = t.count + excluded.count;
        INSERT INTO usage_months AS u (month, subscription_id, last_usage)
        SELECT date_trunc('month', "timestamp" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', subscription_id, max("timestamp")
          FROM added GROUP BY 1, subscription_id
        ON CONFLICT (month, subscription_id) DO UPDATE SET last_usage = greatest(u.last_usage, excluded.last_usage);
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION usage_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_totals AS t (subscription_id, metric_key, sum, max, count)
        SELECT subscription_id, metric_key, sum(value), max(value), count(*) FROM added GROUP BY subscription_id, metric_key
        ON CONFLICT (subscription_id, metric_key) DO UPDATE
          SET sum = t.sum + excluded.sum, max = greatest(t.max, excluded.max), count = t.count + excluded.count;
        RETURN NULL;
      END $$`);
    await q.query(`DROP TABLE usage_months`);
  }
}
