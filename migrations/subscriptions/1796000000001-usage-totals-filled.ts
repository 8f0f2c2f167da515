import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fills `usage_totals` (UsageTotals1796000000000) from the usage events kept, in its own transaction: the
 * trigger already counts every event inserted since it was created, so this reads `usage_events` without
 * holding anything an insert waits for, however many events there are. An event inserted between the two
 * migrations is counted by both, which only raises the totals: they stay bounds from above (an event is never
 * left out). A new instance serves only once its migrations have run, so none reads the totals before this.
 *
 * Down empties the table (UsageTotals1796000000000's down drops it).
 */
export class UsageTotalsFilled1796000000001 implements MigrationInterface {
  name = 'UsageTotalsFilled1796000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO usage_totals AS t (subscription_id, metric_key, sum, max, count)
      SELECT subscription_id, metric_key, sum(value), max(value), count(*) FROM usage_events GROUP BY subscription_id, metric_key
      ON CONFLICT (subscription_id, metric_key) DO UPDATE
        SET sum = t.sum + excluded.sum, max = greatest(t.max, excluded.max), count = t.count + excluded.count`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM usage_totals`);
  }
}
