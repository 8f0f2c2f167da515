import type { EntityManager } from 'typeorm';
import { preparedShape } from './prepared';

export interface KeysetPageRequest {
  /** Table with `id`, `created_at`, `organization_id` and `mode`. */
  table: string;
  columns: string;
  /** WHERE clause; `$1` is the organization and `$2` the mode, followed by `params`' other entries. */
  where: string;
  params: unknown[];
  limit: number;
  offset: number;
  startingAfter?: string;
  /**
   * The WHERE clause filters on values (status, currency, amounts...), not only on the scope and a
   * time range. The matches are then read once and both the total and the page come from them.
   * Without value filters the page is an ordered walk of the `(organization_id, mode, created_at, id)`
   * index that stops after the page, and the total an index-only count.
   */
  filtered?: boolean;
}

export interface KeysetPage<R> {
  rows: R[];
  total: number;
  hasMore: boolean;
}

/**
 * One round trip for a list page, newest first: the total of matches, the page (after the
 * `starting_after` row when given, then `offset`), and whether more follow. Null when the cursor id
 * is not in the caller's organization and mode.
 *
 * The page is chosen by id first (`ids`: the filter's columns are in the list indexes, so this is an
 * index-only scan) and only its rows are then read from the table: a filter matching a few hundred
 * rows spread over the table reads about 21 table pages instead of one per match.
 *
 * With value filters (`filtered`) the index entries of the matches are read once (`hits`) and the
 * total counts them while the page sorts them: the count has to visit every match anyway, and a
 * prepared statement's generic plan, which cannot see the filter's values, would otherwise walk the
 * same entries a second time for the page.
 */
export async function keysetPage<R extends { id: string | null }>(m: EntityManager, q: KeysetPageRequest): Promise<KeysetPage<R> | null> {
  const { text, params } = keysetPageStatement(q);
  const rows: Array<R & { total: string; cursor_found: number }> = await m.query(preparedShape('list_page', text), params);
  if (q.startingAfter !== undefined && rows[0].cursor_found === 0) return null;
  const found = rows.filter((r) => r.id !== null);
  return { rows: found.slice(0, q.limit), total: Number.parseInt(rows[0].total, 10), hasMore: found.length > q.limit };
}

/** The statement keysetPage sends and its parameters (also what the benchmark EXPLAINs). */
export function keysetPageStatement(q: KeysetPageRequest): { text: string; params: unknown[] } {
  const params = [...q.params, q.startingAfter ?? null];
  const cursor = `$${params.length}`;
  const keyset = q.startingAfter !== undefined ? `(created_at, id) < (SELECT created_at, id FROM cur)` : '';
  params.push(q.limit + 1, q.offset);
  const [limit, offset] = [`$${params.length - 1}`, `$${params.length}`];
  const matches = q.filtered
    ? `hits AS MATERIALIZED (SELECT id, created_at FROM ${q.table} WHERE ${q.where}),
          ids AS (SELECT id, created_at FROM hits${keyset && ` WHERE ${keyset}`}
                   ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}),`
    : `ids AS (SELECT id, created_at FROM ${q.table} WHERE ${q.where}${keyset && ` AND ${keyset}`}
                   ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}),`;
  const total = q.filtered ? 'SELECT count(*) FROM hits' : `SELECT count(*) FROM ${q.table} WHERE ${q.where}`;
  const text = `WITH cur AS (SELECT created_at, id FROM ${q.table} WHERE id = ${cursor} AND organization_id = $1 AND mode = $2),
          ${matches}
          page AS (SELECT ${q.columns} FROM ${q.table} WHERE id IN (SELECT id FROM ids) AND organization_id = $1 AND mode = $2)
     SELECT t.total, t.cursor_found, page.*
       FROM (SELECT (${total})::text AS total, (SELECT count(*) FROM cur)::int AS cursor_found) t
       LEFT JOIN page ON true
      ORDER BY page.created_at DESC, page.id DESC`;
  return { text, params };
}
