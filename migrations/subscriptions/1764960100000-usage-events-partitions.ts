import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage events that stay small (docs/performance.md, "Tables that stay small").
 *
 * - `usage_events` becomes partitioned by range of its `timestamp` (when the usage happened, which is
 *   what a period invoice reads: one month's partitions serve one period), one partition a month, with a
 *   default partition for months no range covers yet (the retention job moves them into their month).
 *   PostgreSQL wants every unique key of a partitioned table to hold the partition key, so the primary
 *   key is (organization_id, mode, id, timestamp).
 * - `usage_event_keys` keeps the caller's id unique per organization and mode across every month, as
 *   before: an event is inserted only when its key is new (the key's row names the event's timestamp, so
 *   a repeat finds its event in one partition). Keys are never dropped with their month: a repeat of an
 *   old event is still the same event.
 * - `seq` (arrival order, for LATEST) now comes from a plain sequence, set past every value given so far.
 *
 * The retention job (src/shared/db/partition-retention.ts) creates months ahead and drops those older
 * than USAGE_EVENTS_RETENTION_DAYS, unless a period not invoiced yet still needs their events. Rows are
 * copied here; nothing is lost.
 */
export class UsageEventsPartitions1764960100000 implements MigrationInterface {
  name = 'UsageEventsPartitions1764960100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE usage_events RENAME TO usage_events_unpartitioned`);
    await q.query(`ALTER INDEX usage_events_period RENAME TO usage_events_unpartitioned_period`);
    await q.query(`ALTER TABLE usage_events_unpartitioned RENAME CONSTRAINT usage_events_pkey TO usage_events_unpartitioned_pkey`);

    await q.query(`
      CREATE TABLE usage_event_keys (
        organization_id  text NOT NULL,
        mode             text NOT NULL,
        id               text NOT NULL,
        "timestamp"      timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, id)
      )`);
    await q.query(`CREATE SEQUENCE usage_events_seq AS bigint`);
    await q.query(`
      CREATE TABLE usage_events (
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        id               text NOT NULL,
        subscription_id  text NOT NULL REFERENCES subscriptions(id),
        metric_key       text NOT NULL,
        value            numeric(78,30) NOT NULL CHECK (value >= 0),
        unique_key       text,
        "timestamp"      timestamptz NOT NULL,
        seq              bigint NOT NULL DEFAULT nextval('usage_events_seq'),
        created_at       timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, id, "timestamp")
      ) PARTITION BY RANGE ("timestamp")`);
    await q.query(`ALTER SEQUENCE usage_events_seq OWNED BY usage_events.seq`);
    await q.query(`CREATE INDEX usage_events_period ON usage_events (subscription_id, metric_key, "timestamp")`);
    await q.query(`CREATE TABLE usage_events_default PARTITION OF usage_events DEFAULT`);

    await q.query(`
      INSERT INTO usage_events (organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", seq, created_at)
      SELECT organization_id, mode, id, subscription_id, metric_key, value, unique_key, "timestamp", seq, created_at FROM usage_events_unpartitioned`);
    await q.query(`
      INSERT INTO usage_event_keys (organization_id, mode, id, "timestamp")
      SELECT organization_id, mode, id, "timestamp" FROM usage_events_unpartitioned`);
    await q.query(`SELECT setval('usage_events_seq', coalesce((SELECT max(seq) FROM usage_events_unpartitioned), 0) + 1, false)`);
    await q.query(`DROP TABLE usage_events_unpartitioned`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE usage_events_unpartitioned AS SELECT * FROM usage_events`);
    await q.query(`DROP TABLE usage_events`);
    await q.query(`DROP TABLE usage_event_keys`);
    await q.query(`ALTER TABLE usage_events_unpartitioned RENAME TO usage_events`);
    await q.query(`ALTER TABLE usage_events ADD PRIMARY KEY (organization_id, mode, id)`);
    await q.query(`CREATE INDEX usage_events_period ON usage_events (subscription_id, metric_key, "timestamp")`);
  }
}
