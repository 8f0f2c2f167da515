/**
 * The statements the events module sends (pure: no framework, no driver), so tests can plan exactly
 * these texts (test/e2e/webhooks/outbox-plans.e2e-spec.ts).
 */

export interface EventFilter {
  types?: string[];
  createdFrom?: Date;
  createdTo?: Date;
  objectIds?: string[];
  limit: number;
  offset: number;
}

export const EVENT_COLUMNS = 'id, organization_id, mode, type, data, created_at';

/**
 * The events list counts its matches up to this many: an organization's history runs to millions of
 * events, and counting them all would make every page as slow as the history is long. Past the cap,
 * `total` is the cap and `total_exact` false.
 */
export const EVENT_COUNT_CAP = 10_000;

/**
 * How many matches the list's count may visit (its LIMIT): the cap, or the page's end when that is
 * further (the page's own walk visits as many), plus one to tell "more than that".
 */
export function eventCountBound(filter: Pick<EventFilter, 'limit' | 'offset'>): number {
  return Math.max(EVENT_COUNT_CAP, filter.offset + filter.limit) + 1;
}

/**
 * The list's total from its bounded count (`counted`, at most `bound`): exact below the bound, else
 * the bound less one, which is at least the page's end, so a page short of the end still has more.
 */
export function eventListTotal(counted: number, bound: number): { total: number; exact: boolean } {
  return counted < bound ? { total: counted, exact: true } : { total: bound - 1, exact: false };
}

/**
 * The list's count and page of one organization's mode, newest first. The count takes `params` and the
 * bound (eventCountBound) last; the page takes them and its limit and offset.
 */
export function eventListStatements(organizationId: string, mode: string, filter: EventFilter): { count: string; page: string; params: unknown[] } {
  const where = ['organization_id = $1', 'mode = $2'];
  const params: unknown[] = [organizationId, mode];
  if (filter.types?.length) {
    params.push(filter.types);
    where.push(`type = ANY($${params.length}::text[])`);
  }
  if (filter.objectIds) {
    params.push(filter.objectIds);
    where.push(`(data -> 'object' ->> 'id') = ANY($${params.length}::text[])`);
  }
  if (filter.createdFrom) {
    params.push(filter.createdFrom);
    where.push(`created_at >= $${params.length}`);
  }
  if (filter.createdTo) {
    params.push(filter.createdTo);
    where.push(`created_at <= $${params.length}`);
  }
  const condition = where.join(' AND ');
  return {
    count: `SELECT count(*)::int AS total FROM (SELECT 1 FROM events WHERE ${condition} LIMIT $${params.length + 1}) matched`,
    page: `SELECT ${EVENT_COLUMNS} FROM events WHERE ${condition}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    params,
  };
}

/** One event by id in an organization's mode ($1, $2, $3). */
export const FIND_EVENT_SQL = `SELECT ${EVENT_COLUMNS} FROM events WHERE organization_id = $1 AND mode = $2 AND id = $3`;

/**
 * An event with an id in [$1, $2) after the cursor ($3, $4) in commit order: one a durable handler has
 * not read yet (the retention job's check, one partition).
 */
export const FIRST_UNREAD_IN_RANGE_SQL = `SELECT id FROM events WHERE id >= $1 AND id < $2 AND (transaction_id, position) > ($3::xid8, $4::bigint)
  ORDER BY transaction_id, position LIMIT 1`;
