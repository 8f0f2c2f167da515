import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fills `usage_months` (UsageMonths1796000000002) from the usage events kept, in a transaction of its own
 * that holds nothing an insert waits for. An event stored between the two migrations is seen by both; the
 * latest timestamp is the same either way.
 *
 * Down empties the table (UsageMonths1796000000002's down drops it).
 */
export class UsageMonthsFilled1796000000003 implements MigrationInterface {
  name = 'UsageMonthsFilled1796000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO usage_months AS u (month, subscription_id, last_usage)
      SELECT date_trunc('month', "timestamp" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', subscription_id, max("timestamp")
        FROM usage_events GROUP BY 1, subscription_id
      ON CONFLICT (month, subscription_id) DO UPDATE SET last_usage = greatest(u.last_usage, excluded.last_usage)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM usage_months`);
  }
}
