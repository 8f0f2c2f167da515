import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate history that stays small (docs/performance.md, "Tables that stay small"). The refresher writes a
 * snapshot of every currency each minute by default (about 15 MB a day), and nothing was ever removed.
 *
 * - `rate_snapshots_recent` and `exchange_rates_recent` hold the history, partitioned by range of the
 *   snapshot id (`rates_<UUIDv7>`, ordered by the time it was written), one partition a day: the
 *   retention job (src/shared/db/partition-retention.ts) creates days ahead and drops those older than
 *   RATES_HISTORY_RETENTION_DAYS. Each has a default partition for rows no day covers yet (the job moves
 *   them into their day).
 * - `rate_snapshots_kept` and `exchange_rates_kept` hold the snapshots that outlive their day: before a
 *   day is dropped, the snapshots an invoice, payment or refund holds (and the one in force) are copied
 *   there. Snapshots whose id carries no time (the bundled one) live there from the start.
 * - `rate_snapshots` and `exchange_rates` become views over both, so every read stays as it was; writers
 *   insert into the `_recent` tables.
 *
 * The payments' foreign key to `rate_snapshots` goes: a key cannot point into a view, and the snapshots
 * payments hold are kept by the retention job instead (the job reads `payments.rates_snapshot_id`, a
 * reference the payments module registers). The rows are copied here; nothing is lost.
 */
export class RateHistoryPartitions1764960000000 implements MigrationInterface {
  name = 'RateHistoryPartitions1764960000000';

  async up(q: QueryRunner): Promise<void> {
    // The payments' key (payments_rates_snapshot_id_fkey), whatever its name: every other table's key to rate_snapshots.
    const keys: Array<{ tbl: string; con: string }> = await q.query(
      `SELECT conrelid::regclass::text AS tbl, conname AS con FROM pg_constraint
        WHERE contype = 'f' AND confrelid = 'rate_snapshots'::regclass AND conrelid <> 'exchange_rates'::regclass`,
    );
    for (const k of keys) await q.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT "${k.con.replace(/"/g, '""')}"`);
    await q.query(`ALTER TABLE exchange_rates RENAME TO exchange_rates_unpartitioned`);
    await q.query(`ALTER TABLE rate_snapshots RENAME TO rate_snapshots_unpartitioned`);

    await q.query(`
      CREATE TABLE rate_snapshots_recent (
        id          text NOT NULL,
        taken_at    timestamptz NOT NULL,
        source      text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (id)
      ) PARTITION BY RANGE (id)`);
    await q.query(`CREATE INDEX rate_snapshots_recent_taken_at_idx ON rate_snapshots_recent (taken_at DESC, id DESC)`);
    await q.query(`CREATE TABLE rate_snapshots_recent_default PARTITION OF rate_snapshots_recent DEFAULT`);
    await q.query(`
      CREATE TABLE exchange_rates_recent (
        snapshot_id text NOT NULL,
        currency    text NOT NULL,
        usd_rate    numeric(78,30) NOT NULL CHECK (usd_rate > 0),
        source      text,
        taken_at    timestamptz,
        PRIMARY KEY (snapshot_id, currency)
      ) PARTITION BY RANGE (snapshot_id)`);
    await q.query(`CREATE TABLE exchange_rates_recent_default PARTITION OF exchange_rates_recent DEFAULT`);

    await q.query(`
      CREATE TABLE rate_snapshots_kept (
        id          text PRIMARY KEY,
        taken_at    timestamptz NOT NULL,
        source      text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX rate_snapshots_kept_taken_at_idx ON rate_snapshots_kept (taken_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE exchange_rates_kept (
        snapshot_id text NOT NULL REFERENCES rate_snapshots_kept(id),
        currency    text NOT NULL,
        usd_rate    numeric(78,30) NOT NULL CHECK (usd_rate > 0),
        source      text,
        taken_at    timestamptz,
        PRIMARY KEY (snapshot_id, currency)
      )`);

    // Ids that carry their time (rates_<UUIDv7>) go to the history; any other (the bundled snapshot) is kept.
    const timed = `'^rates_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'`;
    await q.query(`INSERT INTO rate_snapshots_recent (id, taken_at, source, created_at)
                   SELECT id, taken_at, source, created_at FROM rate_snapshots_unpartitioned WHERE id ~ ${timed}`);
    await q.query(`INSERT INTO exchange_rates_recent (snapshot_id, currency, usd_rate, source, taken_at)
                   SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_unpartitioned WHERE snapshot_id ~ ${timed}`);
    await q.query(`INSERT INTO rate_snapshots_kept (id, taken_at, source, created_at)
                   SELECT id, taken_at, source, created_at FROM rate_snapshots_unpartitioned WHERE id !~ ${timed}`);
    await q.query(`INSERT INTO exchange_rates_kept (snapshot_id, currency, usd_rate, source, taken_at)
                   SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_unpartitioned WHERE snapshot_id !~ ${timed}`);
    await q.query(`DROP TABLE exchange_rates_unpartitioned`);
    await q.query(`DROP TABLE rate_snapshots_unpartitioned`);

    await q.query(`
      CREATE VIEW rate_snapshots AS
        SELECT id, taken_at, source, created_at FROM rate_snapshots_recent
        UNION ALL
        SELECT id, taken_at, source, created_at FROM rate_snapshots_kept`);
    await q.query(`
      CREATE VIEW exchange_rates AS
        SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_recent
        UNION ALL
        SELECT snapshot_id, currency, usd_rate, source, taken_at FROM exchange_rates_kept`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rate_snapshots_unpartitioned AS SELECT * FROM rate_snapshots`);
    await q.query(`CREATE TABLE exchange_rates_unpartitioned AS SELECT * FROM exchange_rates`);
    await q.query(`DROP VIEW exchange_rates`);
    await q.query(`DROP VIEW rate_snapshots`);
    await q.query(`DROP TABLE exchange_rates_kept, rate_snapshots_kept, exchange_rates_recent, rate_snapshots_recent`);
    await q.query(`ALTER TABLE rate_snapshots_unpartitioned RENAME TO rate_snapshots`);
    await q.query(`ALTER TABLE exchange_rates_unpartitioned RENAME TO exchange_rates`);
    await q.query(`ALTER TABLE rate_snapshots ADD PRIMARY KEY (id), ALTER COLUMN created_at SET DEFAULT now()`);
    await q.query(`CREATE INDEX rate_snapshots_taken_at_idx ON rate_snapshots (taken_at DESC, id DESC)`);
    await q.query(`ALTER TABLE exchange_rates ADD PRIMARY KEY (snapshot_id, currency), ADD FOREIGN KEY (snapshot_id) REFERENCES rate_snapshots(id)`);
    await q.query(`ALTER TABLE payments ADD CONSTRAINT payments_rates_snapshot_id_fkey FOREIGN KEY (rates_snapshot_id) REFERENCES rate_snapshots(id)`);
  }
}
