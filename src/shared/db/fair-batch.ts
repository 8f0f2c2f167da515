/**
 * Fair batches for background workers: due rows taken round-robin across organizations.
 *
 * A worker that takes "the N oldest due rows" lets one organization's volume (or rows that never
 * finish: a payout hash that never confirms, a delivery to an endpoint that never answers) fill
 * every batch while another organization's due row waits. A fair batch numbers each organization's
 * due rows (per organization and mode) in the worker's own order, the row that waited longest first,
 * keeps at most `cap` of each (WORKER_ORG_BATCH), and orders the batch by that turn: every
 * organization's first row, then every organization's second row, and so on. A worker that could
 * not finish a row moves it to the back of its organization's line by stamping the column that
 * leads its order (`checked_at`, `attempted_at`, `next_attempt_at`, `updated_at`), so the rows it
 * has not tried yet come first on the next pass. An organization with due work is therefore served
 * in the very next batch, whatever the others have queued.
 *
 * The numbering is a window over the due rows (found through the worker's own due index); FOR
 * UPDATE cannot sit beside a window function, so a caller that locks joins the batch's ids to the
 * table and locks there.
 */
export interface FairSource {
  /** The table the rows come from. */
  table: string;
  /** Its alias in `due` and `order` (the batch keeps it, so `alias.column` works after it too). */
  alias: string;
  /** Which rows are due (a condition on the table's columns, with the caller's parameters). */
  due: string;
  /** The order within one organization's line: the row that should go first, first; unique (end with the key). */
  order: string;
  /** The columns the batch carries (`alias.col, ...`): at least the key, organization_id, mode and those `order` names. Default: all. */
  columns?: string;
  /**
   * Read by scope: the condition of a partial index on `(organization_id, mode, <order's columns>)` that every
   * due row meets (`due` implies it). Then the batch walks the index's organizations and modes (one index
   * descent each) and reads at most `cap` due rows of each, in order, through the same index: its cost follows
   * the number of organizations with rows in the pool, not the number of due rows (one organization's backlog
   * of a million due rows costs what twenty do). Without it every due row is numbered on each batch.
   */
  pool?: string;
  /** With `pool`: which organizations' modes may be served (a condition on `s.organization_id` and `s.mode`). */
  scope?: string;
}

/**
 * A SELECT of the table's due rows (its `columns`, plus `fair_turn`: the row's place in its
 * organization's line) in fair order: at most `cap` per organization and mode, `limit` in all.
 * `cap` and `limit` are SQL parameters (`$3`) or literals.
 */
export function fairBatch(source: FairSource, cap: string, limit: string): string {
  const { table, alias: a, due, order } = source;
  if (source.pool !== undefined) return scopedFairBatch({ ...source, pool: source.pool }, cap, limit);
  return `SELECT ${a}.* FROM (
      SELECT ${source.columns ?? `${a}.*`}, row_number() OVER (PARTITION BY ${a}.organization_id, ${a}.mode ORDER BY ${order}) AS fair_turn
        FROM ${table} ${a} WHERE ${due}
    ) ${a}
    WHERE ${a}.fair_turn <= ${cap}
    ORDER BY ${a}.fair_turn, ${order}
    LIMIT ${limit}`;
}

/**
 * fairBatch over a pool (FairSource.pool): the organizations' modes with rows in the pool, found by a skip
 * scan of its index (a recursive step to the next greater `(organization_id, mode)`), each joined to its first
 * `cap` due rows in order (a lateral read of the same index), numbered and ordered as fairBatch's.
 */
function scopedFairBatch(source: FairSource & { pool: string }, cap: string, limit: string): string {
  const { table, alias: a, due, order, pool } = source;
  const served = source.scope ? `(${source.scope}) AND ` : '';
  return `SELECT ${a}.* FROM (
      WITH RECURSIVE fair_scopes (organization_id, mode) AS (
        (SELECT ${a}.organization_id, ${a}.mode FROM ${table} ${a} WHERE ${pool} ORDER BY ${a}.organization_id, ${a}.mode LIMIT 1)
        UNION ALL
        SELECT n.organization_id, n.mode FROM fair_scopes s CROSS JOIN LATERAL (
          SELECT ${a}.organization_id, ${a}.mode FROM ${table} ${a}
           WHERE ${pool} AND (${a}.organization_id, ${a}.mode) > (s.organization_id, s.mode)
           ORDER BY ${a}.organization_id, ${a}.mode LIMIT 1
        ) n
      )
      SELECT ${a}.*, row_number() OVER (PARTITION BY ${a}.organization_id, ${a}.mode ORDER BY ${order}) AS fair_turn
        FROM fair_scopes s CROSS JOIN LATERAL (
          SELECT ${source.columns ?? `${a}.*`} FROM ${table} ${a}
           WHERE ${served}${a}.organization_id = s.organization_id AND ${a}.mode = s.mode AND ${due}
           ORDER BY ${order} LIMIT ${cap}
        ) ${a}
    ) ${a}
    ORDER BY ${a}.fair_turn, ${order}
    LIMIT ${limit}`;
}

/** Whether a batch filled some organization's share: then more of its rows may be due, and the worker goes on at once. */
export function someOrganizationFull(rows: ReadonlyArray<{ organization_id?: string; organizationId?: string; mode?: string }>, cap: number): boolean {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.organization_id ?? row.organizationId} ${row.mode ?? ''}`;
    const n = (counts.get(key) ?? 0) + 1;
    if (n >= cap) return true;
    counts.set(key, n);
  }
  return false;
}
