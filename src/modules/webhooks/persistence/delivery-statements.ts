import { boundedCountSql } from '../../../shared/db/bounded-count';

/**
 * The statements the webhooks module sends to its deliveries and attempts (pure: no framework, no
 * driver), so tests can plan exactly these texts (test/e2e/webhooks/outbox-plans.e2e-spec.ts).
 * `webhook_deliveries` and `webhook_attempts` are partitioned by their event's id: a statement that names
 * the `event_id` touches one month.
 */

/**
 * The endpoints each event of a batch goes to, in the batch's order, then by endpoint id: enabled and not
 * deleted, of the event's organization and mode, subscribed to its type (or `*`), created no later than
 * the event, not the endpoint whose creation the event is, and without a delivery of that event yet (so a
 * batch handled again after a crash, or an event already queued when the database trigger did the work,
 * queues nothing twice). The endpoints are read FOR SHARE: a delete or pause (which locks the endpoint and
 * cancels its pending deliveries) waits for the deliveries queued here and cancels them, or comes first and
 * the endpoint is not a target; none is left pending to an endpoint that no longer takes them. Each target
 * comes with its epoch, which its deliveries record (the dispatcher claims only the endpoint's current one).
 */
export const FAN_OUT_TARGETS = `
  SELECT ev.ord::int AS ord, e.id AS endpoint_id, e.epoch
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[])
         WITH ORDINALITY AS ev(id, organization_id, mode, type, created_at, object_id, ord)
    JOIN webhook_endpoints e ON e.organization_id = ev.organization_id AND e.mode = ev.mode
   WHERE e.enabled AND e.deleted_at IS NULL
     AND ('*' = ANY (e.event_types) OR ev.type = ANY (e.event_types))
     AND e.created_at <= ev.created_at
     AND NOT (ev.type = 'webhook_endpoint.created' AND e.id IS NOT DISTINCT FROM ev.object_id)
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.endpoint_id = e.id)
   ORDER BY ev.ord, e.id
     FOR SHARE OF e`;

/**
 * The most deliveries one claim takes (WEBHOOK_DISPATCH_BATCH's maximum). Written into the claim as a literal
 * LIMIT, so that a generic plan, which cannot see the batch's size, knows the claim touches that many rows at
 * most and looks each up by key, instead of guessing a tenth of every due delivery and hashing the table.
 */
export const MAX_DISPATCH_BATCH = 500;

/**
 * Due deliveries of enabled endpoints, queued in their endpoint's current epoch, in fair order ($1: limit, $3: per-organization cap), of organizations' modes
 * of organization $5 only when it is not null (an on-demand pass a test asks for), other than those in $4 (`<organization> <mode>`: those with a full share in flight on this instance, see WebhookDispatcher).
 *
 * A fair batch (shared/db/fair-batch.ts) read by organization, each organization's share read through its
 * endpoints: the organizations' modes with pending deliveries (a skip scan of `webhook_deliveries_scope_due_idx`,
 * one index descent each), then for each its enabled endpoints (at most 16) and each endpoint's first `$3` due
 * deliveries of its current epoch (`webhook_deliveries_endpoint_due_idx`), merged by due time. Deliveries an
 * endpoint queued before its pause, deletion or disabling (an older epoch) stay pending until the dispatcher
 * marks them cancelled, a million after a day of failures; read in due order and filtered, they made every
 * claim of every organization read them all. Read by endpoint and epoch, they are never touched.
 */
export const CLAIM_BATCH = `SELECT d.* FROM (
      WITH RECURSIVE fair_scopes (organization_id, mode) AS (
        (SELECT d.organization_id, d.mode FROM webhook_deliveries d WHERE d.status = 'pending' ORDER BY d.organization_id, d.mode LIMIT 1)
        UNION ALL
        SELECT n.organization_id, n.mode FROM fair_scopes s CROSS JOIN LATERAL (
          SELECT d.organization_id, d.mode FROM webhook_deliveries d
           WHERE d.status = 'pending' AND (d.organization_id, d.mode) > (s.organization_id, s.mode)
           ORDER BY d.organization_id, d.mode LIMIT 1
        ) n
      )
      SELECT d.*, row_number() OVER (PARTITION BY d.organization_id, d.mode ORDER BY d.next_attempt_at, d.id) AS fair_turn
        FROM fair_scopes s CROSS JOIN LATERAL (
          SELECT q.id, q.event_id, q.organization_id, q.mode, q.next_attempt_at
            FROM webhook_endpoints e CROSS JOIN LATERAL (
              SELECT d.id, d.event_id, d.organization_id, d.mode, d.next_attempt_at FROM webhook_deliveries d
               WHERE d.endpoint_id = e.id AND d.endpoint_epoch = e.epoch AND d.status = 'pending' AND d.next_attempt_at <= now()
               ORDER BY d.next_attempt_at, d.id LIMIT $3
            ) q
           WHERE e.organization_id = s.organization_id AND e.mode = s.mode AND e.enabled AND e.deleted_at IS NULL
             AND (s.organization_id || ' ' || s.mode) <> ALL ($4::text[]) AND ($5::text IS NULL OR s.organization_id = $5)
           ORDER BY q.next_attempt_at, q.id LIMIT $3
        ) d
    ) d
    ORDER BY d.fair_turn, d.next_attempt_at, d.id
    LIMIT $1`;

/**
 * Claims a fair batch of due deliveries ($1: limit, $2: lease in ms, $3: per-organization cap, $4: organizations'
 * modes left out, $5: the one organization served, or null for all): locks them one by one by key, updates them through their keys (given as arrays, which the
 * planner reads through the primary key), and reads each one's endpoint and event by key (lateral reads, kept as
 * lookups): never a scan of every due delivery or event, whatever a generic plan guesses of the batch's size
 * (SKIP LOCKED), raises their attempt count and moves their next attempt past the lease, and answers each
 * with its endpoint and event.
 */
export const CLAIM_DUE_SQL = `WITH batch AS (${CLAIM_BATCH}),
       due AS (
         SELECT l.event_id, l.id, l.endpoint_id FROM (SELECT event_id, id FROM batch LIMIT ${MAX_DISPATCH_BATCH}) batch CROSS JOIN LATERAL (
           SELECT d.event_id, d.id, d.endpoint_id FROM webhook_deliveries d
            WHERE d.event_id = batch.event_id AND d.id = batch.id AND d.status = 'pending' AND d.next_attempt_at <= now()
            FOR UPDATE OF d SKIP LOCKED
         ) l
       )
       UPDATE webhook_deliveries d
          SET attempt_count = d.attempt_count + 1,
              next_attempt_at = now() + $2 * interval '1 millisecond',
              last_attempt_at = now()
         FROM due
              CROSS JOIN LATERAL (
                SELECT e.url, e.secret, e.previous_secret, e.previous_secret_expires_at FROM webhook_endpoints e WHERE e.id = due.endpoint_id LIMIT 1
              ) e
              CROSS JOIN LATERAL (
                SELECT ev.type, ev.data, ev.created_at FROM events ev WHERE ev.id = due.event_id LIMIT 1
              ) ev
        WHERE d.event_id = ANY (ARRAY(SELECT event_id FROM due)) AND d.id = ANY (ARRAY(SELECT id FROM due))
          AND d.event_id = due.event_id AND d.id = due.id
      RETURNING d.id, d.organization_id, d.mode, d.endpoint_id, d.event_id, d.attempt_count,
                e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
                ev.type AS event_type, ev.data AS event_data, ev.created_at AS event_created_at`;

/** An attempts page's count and page for one endpoint, optionally of one event (then one partition). */
export function attemptListStatements(
  organizationId: string,
  mode: string,
  endpointId: string,
  eventId?: string,
): { count: string; page: string; params: unknown[] } {
  const where = ['a.organization_id = $1', 'a.mode = $2', 'a.endpoint_id = $3'];
  const params: unknown[] = [organizationId, mode, endpointId];
  if (eventId) {
    params.push(eventId);
    where.push(`a.event_id = $${params.length}`);
  }
  const condition = where.join(' AND ');
  return {
    count: boundedCountSql('webhook_attempts a', condition, params.length + 1),
    page: `SELECT a.*, ev.type AS event_type FROM webhook_attempts a JOIN events ev ON ev.id = a.event_id
        WHERE ${condition} ORDER BY a.created_at DESC, a.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    params,
  };
}

/** A pending delivery of an event with an id in [$1, $2): the retention job's check before a month goes (one partition). */
export const PENDING_IN_RANGE_SQL = `SELECT id FROM webhook_deliveries WHERE event_id >= $1 AND event_id < $2 AND status = 'pending' LIMIT 1`;

/**
 * How many of an endpoint's pending deliveries the request that pauses or deletes it cancels itself; the
 * dispatcher's passes cancel the rest (CANCEL_BATCH at a time), none of which is sent meanwhile.
 */
export const CANCEL_IN_REQUEST = 1000;
/** How many of one endpoint's stale deliveries a pass cancels in one transaction. */
export const CANCEL_BATCH = 5000;

/**
 * Cancels up to $3 pending deliveries of endpoint $1 queued before its epoch $2 (it was paused, deleted or
 * disabled since); $4 the reason recorded, $5 when. Answers one row per delivery cancelled. In a dispatcher
 * pass a delivery another transaction holds (being claimed or recorded) is left for a later pass rather than
 * waited for: the endpoint stays flagged `cancelling` while any is left.
 */
const cancelStale = (lock: string) => `WITH stale AS (
         SELECT d.event_id, d.id FROM webhook_deliveries d
          WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.endpoint_epoch < $2
          LIMIT $3 ${lock}
       )
       UPDATE webhook_deliveries d SET status = 'cancelled', next_attempt_at = NULL, last_error = $4, completed_at = $5
         FROM stale WHERE d.event_id = stale.event_id AND d.id = stale.id AND d.status = 'pending'
       RETURNING d.id`;
/** The request's (pause, delete): waits for a delivery being claimed or recorded, so what it marks is marked. */
export const CANCEL_STALE_SQL = cancelStale('FOR UPDATE OF d');
/** A dispatcher pass's: skips such a delivery (a later pass marks it) rather than wait. */
export const CANCEL_STALE_SKIPPING_SQL = cancelStale('FOR UPDATE OF d SKIP LOCKED');

/**
 * Clears endpoint $1's `cancelling` flag when none of its pending deliveries is of an epoch before its current
 * one (a delivery another transaction is cancelling still counts: the flag stays and a later pass clears it).
 */
export const CANCELLING_DONE_SQL = `UPDATE webhook_endpoints e SET cancelling = false
        WHERE e.id = $1 AND e.cancelling
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.endpoint_epoch < e.epoch)`;

/**
 * Endpoint $1's epoch, locked for the pass that cancels its stale deliveries, or no row when it is no longer
 * flagged or another transaction holds it (a request pausing, enabling or deleting it, or another instance's
 * pass): that pass skips it rather than wait. Taken before the deliveries, in the order the requests take them.
 */
export const LOCK_CANCELLING_ENDPOINT_SQL = `SELECT epoch FROM webhook_endpoints WHERE id = $1 AND cancelling FOR NO KEY UPDATE SKIP LOCKED`;

/** Endpoints with pending deliveries of an older epoch left to cancel ($1 at most), and why they stopped taking them. */
export const CANCELLING_ENDPOINTS_SQL = `SELECT id, epoch, deleted_at IS NOT NULL AS deleted FROM webhook_endpoints WHERE cancelling ORDER BY id LIMIT $1`;
