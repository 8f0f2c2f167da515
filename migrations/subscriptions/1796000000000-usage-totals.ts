import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Running totals of each subscription's usage, so ingestion checks the amount limit without reading the
 * period's events (docs/subscriptions.md, "Usage ingestion at volume").
 *
 * - `usage_totals`: per subscription and metric, the sum, the largest value and the count of every usage
 *   event ever stored. Values are never negative, so these bound every period's aggregates from above: a
 *   batch whose totals keep the invoice under the limit needs no look at the period at all.
 * - Kept by a statement trigger on `usage_events` (its new rows, grouped), so every writer keeps it,
 *   including an instance of the service from before this migration still running beside a new one. The
 *   retention job moves rows between partitions by naming the partition, which the parent's trigger does
 *   not see, and dropping old months leaves the totals as they were: still bounds.
 * - `sum` is an unbounded numeric: a lifetime's sum may pass what one event's value holds.
 *
 * Filled from the events kept by the next migration (UsageTotalsFilled1796000000001), in a transaction of
 * its own: creating the trigger locks `usage_events` against writes until this one commits, so the scan of
 * every event runs after, holding nothing that an insert waits for. Down drops both.
 */
export class UsageTotals1796000000000 implements MigrationInterface {
  name = 'UsageTotals1796000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE usage_totals (
        subscription_id  text NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        metric_key       text NOT NULL,
        sum              numeric NOT NULL,
        max              numeric NOT NULL,
        count            bigint NOT NULL,
        PRIMARY KEY (subscription_id, metric_key)
      )`);
    await q.query(`
      CREATE FUNCTION usage_totals_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_totals AS t (subscription_id, metric_key, sum, max, count)
        SELECT subscription_id, metric_key, sum(value), max(value), count(*) FROM added GROUP BY subscription_id, metric_key
        ON CONFLICT (subscription_id, metric_key) DO UPDATE
          SET sum = t.sum + excluded.sum, max = greatest(t.max, excluded.max), count = t.count + excluded.count;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER usage_totals_added AFTER INSERT ON usage_events
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION usage_totals_added()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER usage_totals_added ON usage_events`);
    await q.query(`DROP FUNCTION usage_totals_added()`);
    await q.query(`DROP TABLE usage_totals`);
  }
}
