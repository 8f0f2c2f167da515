import { boundedCountSql } from '../../../shared/db/bounded-count';

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
 * The list's count and page of one organization's mode, newest first. The count is bounded
 * (shared/db/bounded-count.ts) and takes `params` and the bound last; the page takes them and its
 * limit and offset.
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
    count: boundedCountSql('events', condition, params.length + 1),
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
