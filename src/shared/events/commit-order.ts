/** The durable handlers' read of the events in commit order (pure: no framework, no driver; planned as such by test/e2e/webhooks/outbox-plans.e2e-spec.ts). */

/**
 * One statement, one snapshot: up to $4 events of types $3 after the cursor ($1, $2), in commit order,
 * and the last event after the cursor of any type (`top`), both among the rows of transactions older
 * than every transaction still running (`bound`): a row of a transaction still open, or of one that
 * starts later, will sort after everything read here.
 */
export const NEXT_EVENTS_SQL = `
  WITH bound AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
  picked AS (
    SELECT e.id, e.organization_id, e.mode, e.type, e.data, e.created_at, e.transaction_id, e.position
      FROM events e, bound b
     WHERE (e.transaction_id, e.position) > ($1::xid8, $2::bigint) AND e.transaction_id < b.xmin
       AND ('*' = ANY ($3::text[]) OR e.type = ANY ($3::text[]))
     ORDER BY e.transaction_id, e.position
     LIMIT $4),
  top AS (
    SELECT e.transaction_id, e.position
      FROM events e, bound b
     WHERE (e.transaction_id, e.position) > ($1::xid8, $2::bigint) AND e.transaction_id < b.xmin
     ORDER BY e.transaction_id DESC, e.position DESC
     LIMIT 1)
  SELECT 'event' AS kind, id, organization_id, mode, type, data, created_at, transaction_id::text AS tx, position::text AS pos FROM picked
  UNION ALL
  SELECT 'top', NULL, NULL, NULL, NULL, NULL, NULL, transaction_id::text, position::text FROM top`;
