import type { QueryRunner } from 'typeorm';

/*
 * Helpers the migrations that partition a table by month of its UUIDv7 ids share (events, webhook deliveries).
 * Released migrations import them, so what they do is fixed like a migration's own text: never change one; a
 * migration that needs something else writes a new helper. Files under migrations/<owner>/support/ are not
 * migrations (data-source.ts, migrationFiles).
 */

/** The months (UTC) that hold ids `<prefix><UUIDv7>` of `column` in `table`, as Unix milliseconds of each month's start. */
export async function monthsOfIds(q: QueryRunner, table: string, column: string, prefix: string): Promise<number[]> {
  const at = `to_timestamp((('x' || substr(${column}, ${prefix.length + 1}, 8) || substr(${column}, ${prefix.length + 10}, 4))::bit(48)::bigint) / 1000.0)`;
  const rows: Array<{ ms: string }> = await q.query(
    `SELECT DISTINCT (extract(epoch FROM date_trunc('month', ${at} AT TIME ZONE 'UTC')) * 1000)::bigint::text AS ms
       FROM ${table} WHERE ${column} ~ ('^' || $1 || '[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')`,
    [prefix],
  );
  return rows.map((r) => Number(r.ms));
}

/**
 * The month partitions (`<table>_p202611`) of ids `<prefix><UUIDv7>` for the months in `starts` (Unix ms of
 * each month's start), as the kernel's retention job names and bounds them (src/shared/db/partition-ranges.ts):
 * from the lowest id of the month's first millisecond to the lowest id of the next month's.
 */
export async function createMonthPartitions(q: QueryRunner, table: string, prefix: string, starts: number[]): Promise<void> {
  const floor = (ms: number) => {
    const hex = ms.toString(16).padStart(12, '0');
    return `${prefix}${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
  };
  for (const ms of [...new Set(starts)].sort((a, b) => a - b)) {
    const from = new Date(ms);
    const to = Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1);
    const suffix = `p${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
    await q.query(`CREATE TABLE ${table}_${suffix} PARTITION OF ${table} FOR VALUES FROM ('${floor(ms)}') TO ('${floor(to)}')`);
  }
}

/** This month and the `ahead` months after it (Unix ms of each start), by the database's clock. */
export async function monthsFromNow(q: QueryRunner, ahead: number): Promise<number[]> {
  const [{ ms }]: Array<{ ms: string }> = await q.query(
    `SELECT (extract(epoch FROM date_trunc('month', now() AT TIME ZONE 'UTC')) * 1000)::bigint::text AS ms`,
  );
  const start = new Date(Number(ms));
  return Array.from({ length: ahead + 1 }, (_, k) => Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + k, 1));
}

/**
 * Analyzes the partitions of `table` that hold rows, so their plans use the statistics the old table had.
 * Empty ones (the months ahead, the default) are left as never analyzed: the planner then assumes a few
 * pages and uses their indexes, where statistics saying "empty" would have it scan them whole once they fill.
 */
export async function analyzeFilled(q: QueryRunner, table: string): Promise<void> {
  const parts: Array<{ name: string }> = await q.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [table],
  );
  for (const { name } of parts) {
    const [{ filled }]: Array<{ filled: boolean }> = await q.query(`SELECT EXISTS (SELECT 1 FROM ${name}) AS filled`);
    if (filled) await q.query(`ANALYZE ${name}`);
  }
}
