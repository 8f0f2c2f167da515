import type { EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
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
  /**
   * `where` split into disjoint parts whose union it is, each with an equality on a column that an
   * index orders by `(created_at, id)` after the scope (one part per status asked for). The page then
   * merges each part's newest-first index walk, which stops after a page of entries, and the total is
   * a count of `where` on its own.
   */
  parts?: string[];
  /**
   * False: the matches are not counted and `total` is -1 (a caller walking every page, such as an
   * export, counts once on its first page rather than again for each page).
   */
  countTotal?: boolean;
}

export interface KeysetPage<R> {
  rows: R[];
  /** The number of matches; -1 when the request's countTotal was false. */
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
 * The page's rows are read by one primary-key probe per chosen id (a LATERAL join: the ids are the
 * outer side whatever the planner believes). Written as `id IN (SELECT id FROM ids)`, a plan made on
 * missing or stale statistics (a fresh import, a new large merchant: the planner then expects one
 * row of the organization) put the organization's rows on the outer side of a nested loop and ran
 * the whole page choice once per row: 2,500 times for 2,500 invoices (26 ms instead of about 1).
 *
 * With value filters (`filtered`) the index entries of the matches are read once (`hits`) and the
 * total counts them while the page sorts them: the count has to visit every match anyway, and a
 * prepared statement's generic plan, which cannot see the filter's values, would otherwise walk the
 * same entries a second time for the page.
 *
 * A status filter is better served still (`parts`): the status indexes order each status's entries
 * newest first, so the page is a merge of one ordered walk per status that stops after a page of
 * entries, and only the count visits every match. Sorting a few thousand matches for the page cost
 * PostgreSQL more than counting them (the benchmark's filter, 2,720 matches of
 * 10,000 invoices: 1.8 -> 1.0 ms under EXPLAIN ANALYZE).
 */
export async function keysetPage<R extends { id: string | null }>(m: EntityManager, q: KeysetPageRequest): Promise<KeysetPage<R> | null> {
  const { text, params } = keysetPageStatement(q);
  const rows: Array<R & { total: string; cursor_found: number }> = await m.query(preparedShape('list_page', text), params);
  if (q.startingAfter !== undefined && rows[0].cursor_found === 0) return null;
  const found = rows.filter((r) => r.id !== null);
  return { rows: found.slice(0, q.limit), total: rows[0].total === null ? -1 : Number.parseInt(rows[0].total, 10), hasMore: found.length > q.limit };
}

/*
 * Sessions plan each list shape once, without looking at the values (plan_cache_mode, see
 * data-source.ts). Two things in the filters' SQL decide which index such a plan reads when a list
 * is filtered on status and on an amount range (the index on status carries the amount):
 *
 * - `status = ANY($n)` tells the planner nothing about how many statuses are asked for, and it
 *   reckons with ten, each an index descent over a sixth of the organization's rows: the status
 *   index then looks no better than walking the organization's whole range in any other index that
 *   carries the columns. `status IN ($a, $b)` says how many (a list shape per count, six at most).
 * - A two-sided range on a parameter is priced at 0.5% of the rows, so the amount index always won.
 *   Merchants' ranges are rarely that narrow: on an organization of 10,000 invoices the benchmark's
 *   range (10..900 USD) walked 8,000 entries to find 2,720 matches where the status index holds
 *   3,000 (PostgreSQL time per list 2.0 -> 1.2 ms). With a status filter the bound is written
 *   `(...) IS TRUE`, the same test on a NOT NULL column but no index condition, and is checked on
 *   the status index's copy of the amount. Without one it stays an index range.
 */

/**
 * A list's WHERE clause in the making: the scope first (`$1` the organization, `$2` the mode), then
 * one clause per filter with its parameters. `filtered` records whether any clause filters on values
 * rather than on time (keysetPage then reads the matches once).
 */
export class ListWhere {
  readonly params: unknown[];
  private readonly clauses = ['organization_id = $1', 'mode = $2'];
  /** Where the status clause is among the clauses, and one placeholder per status it asks for. */
  private statusClause?: { at: number; placeholders: string[] };
  filtered = false;

  constructor(scope: Scope) {
    this.params = [scope.organizationId, scope.mode];
  }

  /** A parameter for clauses to refer to; returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** A clause over one parameter (`sql` gets its placeholder). */
  add(sql: (p: string) => string, value: unknown, on: 'value' | 'time' = 'value'): void {
    this.clauses.push(sql(this.param(value)));
    if (on === 'value') this.filtered = true;
  }

  /**
   * `column IN ($a, $b)`, one parameter per distinct value, for up to four values (a statement shape per
   * count); more values go as one array parameter. Without statistics `= ANY($n)` is priced as ten values,
   * each an index descent, and a currency filter then walked the organization's whole range instead of
   * the currency index's (8,999 invoices for 1,801 matches).
   */
  oneOf(column: string, values: readonly string[]): void {
    const distinct = [...new Set(values)];
    if (distinct.length > 4) this.add((p) => `${column} = ANY(${p}::text[])`, distinct);
    else {
      this.clauses.push(`${column} IN (${distinct.map((v) => this.param(v)).join(', ')})`);
      this.filtered = true;
    }
  }

  /** `status IN (...)`, one parameter per distinct status: the plan knows how many were asked for. */
  statuses(asked: readonly string[]): void {
    const placeholders = [...new Set(asked)].map((status) => this.param(status));
    this.statusClause = { at: this.clauses.length, placeholders };
    this.clauses.push(`status IN (${placeholders.join(', ')})`);
    this.filtered = true;
  }

  /**
   * The scope is tested on the rows found rather than used to find them: for a filter whose own index
   * does not start with the scope and finds a handful of rows (a payment's invoice). Without statistics
   * the planner prices the scope's two equalities as far more selective than one, and read the
   * organization's whole range to find an invoice's two payments.
   */
  scopeOnRow(): void {
    this.scopeTestedOnRow = true;
  }

  private scopeTestedOnRow = false;

  private render(clauses: string[]): string {
    if (!this.scopeTestedOnRow) return clauses.join(' AND ');
    return [`(${clauses[0]} AND ${clauses[1]}) IS TRUE`, ...clauses.slice(2)].join(' AND ');
  }

  get where(): string {
    return this.render(this.clauses);
  }

  /** With a status filter, the WHERE clause once per status (`status = $k` for the list): see KeysetPageRequest.parts. */
  get parts(): string[] | undefined {
    const status = this.statusClause;
    if (!status) return undefined;
    return status.placeholders.map((p) => this.render(this.clauses.map((c, i) => (i === status.at ? `status = ${p}` : c))));
  }
}

/** A bound on a NOT NULL amount column; an index condition only when the list has no status filter. */
export function amountBound(column: string, op: '>=' | '<=', param: string, statusFiltered: boolean): string {
  const test = `${column} ${op} ${param}::numeric`;
  return statusFiltered ? `(${test}) IS TRUE` : test;
}

/** The statement keysetPage sends and its parameters (also what the benchmark EXPLAINs). */
export function keysetPageStatement(q: KeysetPageRequest): { text: string; params: unknown[] } {
  const params = [...q.params, q.startingAfter ?? null];
  const cursor = `$${params.length}`;
  const keyset = q.startingAfter !== undefined ? `(created_at, id) < (SELECT created_at, id FROM cur)` : '';
  params.push(q.limit + 1, q.offset);
  const [limit, offset] = [`$${params.length - 1}`, `$${params.length}`];
  // The page's order; each status walk must follow it for the merge to be the page.
  const order = 'ORDER BY created_at DESC, id DESC';
  const newestFirst = `${order} LIMIT ${limit} OFFSET ${offset}`;
  const walk = (where: string) => `SELECT id, created_at FROM ${q.table} WHERE ${where}${keyset && ` AND ${keyset}`}`;
  let matches: string;
  let total = `SELECT count(*) FROM ${q.table} WHERE ${q.where}`;
  if (q.parts?.length) {
    // Each part's walk stops once it has enough entries for the page (offset included).
    const enough = `${limit}::bigint + ${offset}::bigint`;
    const walks = q.parts.map((part) => `(${walk(part)} ${order} LIMIT ${enough})`);
    matches = `ids AS (SELECT id, created_at FROM (${walks.join(' UNION ALL ')}) walks
                   ${newestFirst}),`;
    // The parts are disjoint (one status each): the total is the sum of their counts, each a range
    // of the status index. One count over `status IN (...)` was, without statistics, costed as
    // several index descents against one descent of any index on the scope, and walked the
    // organization's whole range instead.
    total = q.parts.map((part) => `(SELECT count(*) FROM ${q.table} WHERE ${part})`).join(' + ');
  } else if (q.filtered && q.countTotal !== false) {
    // The matches are read once for both the page and the count. Without a count (an export's pages), the
    // walk below takes the cursor into its index condition: reading every match again for each page would
    // make an export's cost grow with the square of its rows.
    matches = `hits AS MATERIALIZED (SELECT id, created_at FROM ${q.table} WHERE ${q.where}),
          ids AS (SELECT id, created_at FROM hits${keyset && ` WHERE ${keyset}`}
                   ${newestFirst}),`;
    total = 'SELECT count(*) FROM hits';
  } else {
    matches = `ids AS (${walk(q.where)}
                   ${newestFirst}),`;
  }
  if (q.countTotal === false) total = 'NULL';
  // The cursor row and the page's rows are read by primary key; the scope is checked on the row, as
  // `(...) IS TRUE` so that no index on the scope can serve the lookup. Without statistics the planner
  // expects the scope to match one row, as the key does, and took an index on the scope: each of the
  // page's 21 lookups then walked the organization's entries (page x organization rows).
  const inScope = '(organization_id = $1 AND mode = $2) IS TRUE';
  const text = `WITH cur AS (SELECT created_at, id FROM ${q.table} WHERE id = ${cursor} AND ${inScope}),
          ${matches}
          page AS (SELECT p.* FROM ids CROSS JOIN LATERAL (
                     SELECT ${q.columns} FROM ${q.table} WHERE id = ids.id AND ${inScope}) p)
     SELECT t.total, t.cursor_found, page.*
       FROM (SELECT (${total})::text AS total, (SELECT count(*) FROM cur)::int AS cursor_found) t
       LEFT JOIN page ON true
      ORDER BY page.created_at DESC, page.id DESC`;
  return { text, params };
}
