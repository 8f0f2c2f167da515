import { Inject, Injectable } from '@nestjs/common';
import { runBoundedCount } from '../../../shared/db/bounded-count';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import type { StoredEvent } from '../../../shared/events/event-payload';
import { SecretBox } from '../../../shared/crypto/secret-box';
import {
  attemptListStatements,
  CANCEL_IN_REQUEST,
  LOCK_CANCELLING_ENDPOINT_SQL,
  CANCEL_STALE_SKIPPING_SQL,
  CANCEL_STALE_SQL,
  CANCELLING_DONE_SQL,
  CANCELLING_ENDPOINTS_SQL,
  CLAIM_DUE_SQL,
  FAN_OUT_TARGETS,
  PENDING_IN_RANGE_SQL,
} from './delivery-statements';
import { rowsOf } from './sql-rows';
import { endpointSecretContext } from './webhook-endpoints.repository';

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  organization_id: string;
  mode: Mode;
  endpoint_id: string;
  event_id: string;
  /** The number of the attempt being made now (1 for the first). */
  attempt_count: number;
  url: string;
  /**
   * The endpoint's signing secret; null when it could not be opened here (a corrupted value, or one sealed with a
   * key this instance lacks): that delivery is recorded as failed without being sent, and the rest of the batch
   * goes on.
   */
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event: StoredEvent;
}

export interface AttemptRow {
  id: string;
  organization_id: string;
  mode: Mode;
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
  attempt_number: number;
  url: string;
  succeeded: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: Date | null;
  created_at: Date;
}

export interface AttemptView extends AttemptRow {
  event_type: string;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
}

/**
 * A delivery's key: its event's id (what `webhook_deliveries` is partitioned on, so a statement given it
 * touches one month) and its own id.
 */
export interface DeliveryKey {
  id: string;
  eventId: string;
}

/** A committed event to fan out: its row's fields, and the id of its object (an endpoint's own creation is not sent to it). */
export interface FanOutEvent {
  id: string;
  organizationId: string;
  mode: Mode;
  type: string;
  createdAt: Date;
  objectId: string | null;
}

/** A delivery the fan-out queues: one event for one endpoint. */
export interface FanOutDelivery {
  id: string;
  organizationId: string;
  mode: Mode;
  endpointId: string;
  /** The endpoint's epoch when the delivery was queued (see `cancelPending`). */
  endpointEpoch: number;
  eventId: string;
  createdAt: Date;
}

/** An endpoint whose older epochs' pending deliveries are being cancelled. */
export interface CancellingEndpoint {
  id: string;
  epoch: number;
  deleted: boolean;
}

/** Deliveries and attempts. The dispatcher's claim works across organizations; the rest is scoped. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@Inject(SecretBox) private readonly box: SecretBox) {}

  /**
   * Claims up to `limit` due deliveries of enabled endpoints for one attempt each: rows another
   * instance is claiming are skipped (FOR UPDATE SKIP LOCKED), and each claimed row gets its
   * attempt number and a lease (next_attempt_at moved past the attempt's timeout), so no other
   * instance takes it while it is being sent; after a crash it becomes due again when the lease ends.
   *
   * The batch is fair (shared/db/fair-batch.ts): at most `cap` deliveries of one organization's mode,
   * organizations interleaved, each organization's longest due first. A failed attempt's retry is
   * scheduled later (next_attempt_at), behind the organization's other due deliveries. With `organizationId`,
   * only that organization's (an on-demand pass).
   */
  async claimDue(
    m: EntityManager,
    cap: number,
    limit: number,
    leaseMs: number,
    busy: readonly string[] = [],
    organizationId: string | null = null,
  ): Promise<ClaimedDelivery[]> {
    const rows = rowsOf<Omit<ClaimedDelivery, 'event'> & { event_type: string; event_data: StoredEvent['data']; event_created_at: Date }>(
      await m.query(CLAIM_DUE_SQL, [limit, leaseMs, cap, busy, organizationId]),
    );
    // The claim has committed: one secret that cannot be opened must not throw the whole batch (every organization's
    // deliveries in it) back to wait for its lease, again and again.
    const open = (sealed: string | null, endpointId: string): string | null => {
      if (sealed === null) return null;
      try {
        return this.box.open(sealed, endpointSecretContext(endpointId));
      } catch {
        return null;
      }
    };
    return rows.map((r) => ({
      id: r.id,
      organization_id: r.organization_id,
      mode: r.mode,
      endpoint_id: r.endpoint_id,
      event_id: r.event_id,
      attempt_count: r.attempt_count,
      url: r.url,
      secret: open(r.secret, r.endpoint_id),
      previous_secret: open(r.previous_secret, r.endpoint_id),
      previous_secret_expires_at: r.previous_secret_expires_at,
      event: { id: r.event_id, organization_id: r.organization_id, mode: r.mode, type: r.event_type, data: r.event_data, created_at: r.event_created_at },
    }));
  }

  /**
   * Records an attempt while its delivery is there. One that went while the attempt was in flight (cancelled
   * meanwhile, then its month dropped by the retention job) gets none: the row would land in the attempts'
   * default partition, pointing at a delivery and an event that are gone, and stay there.
   */
  async insertAttempt(m: EntityManager, row: AttemptRow): Promise<void> {
    await m.query(
      `INSERT INTO webhook_attempts (id, organization_id, mode, endpoint_id, delivery_id, event_id, attempt_number, url, succeeded,
         response_status, response_body, error, duration_ms, next_attempt_at, created_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15
        WHERE EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $6 AND d.id = $5)`,
      [
        row.id,
        row.organization_id,
        row.mode,
        row.endpoint_id,
        row.delivery_id,
        row.event_id,
        row.attempt_number,
        row.url,
        row.succeeded,
        row.response_status,
        row.response_body,
        row.error,
        row.duration_ms,
        row.next_attempt_at,
        row.created_at,
      ],
    );
  }

  /** Final outcome of the attempt that holds the claim; false when the claim was lost (another attempt took over). */
  async finish(
    m: EntityManager,
    { id, eventId }: DeliveryKey,
    attempt: number,
    status: 'succeeded' | 'failed',
    error: string | null,
    at: Date,
  ): Promise<boolean> {
    const rows = rowsOf<{ id: string }>(
      await m.query(
        `UPDATE webhook_deliveries SET status = $3, last_error = $4, next_attempt_at = NULL, completed_at = $5
        WHERE event_id = $6 AND id = $1 AND attempt_count = $2 AND status = 'pending' RETURNING id`,
        [id, attempt, status, error, at, eventId],
      ),
    );
    return rows.length > 0;
  }

  /** Schedules the next attempt after a failed one. */
  async scheduleRetry(m: EntityManager, { id, eventId }: DeliveryKey, attempt: number, delayMs: number, error: string): Promise<Date | null> {
    const rows = rowsOf<{ next_attempt_at: Date }>(
      await m.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + $3 * interval '1 millisecond', last_error = $4
        WHERE event_id = $5 AND id = $1 AND attempt_count = $2 AND status = 'pending' RETURNING next_attempt_at`,
        [id, attempt, delayMs, error, eventId],
      ),
    );
    return rows[0]?.next_attempt_at ?? null;
  }

  /**
   * Stops the endpoint's pending deliveries (endpoint disabled or deleted), under the endpoint's lock. The
   * endpoint enters a new epoch, so none of the deliveries queued before is claimed again, also if it is
   * enabled again; up to CANCEL_IN_REQUEST of them are marked cancelled here and the rest by the
   * dispatcher's passes (the endpoint is flagged `cancelling` until none is left). A backlog of millions
   * thus costs the request that pauses or deletes its endpoint no more than a thousand rows.
   */
  async cancelPending(m: EntityManager, endpointId: string, reason: string, at: Date): Promise<void> {
    const [row] = rowsOf<{ epoch: number }>(
      await m.query(`UPDATE webhook_endpoints SET epoch = epoch + 1, cancelling = true WHERE id = $1 RETURNING epoch`, [endpointId]),
    );
    if (!row) return;
    await this.cancelStale(m, { id: endpointId, epoch: row.epoch }, reason, at, CANCEL_IN_REQUEST);
  }

  /**
   * Cancels up to `limit` of the endpoint's pending deliveries queued before `epoch`, then clears its
   * `cancelling` flag if none is left; the number cancelled.
   */
  async cancelStale(m: EntityManager, endpoint: { id: string; epoch: number }, reason: string, at: Date, limit: number, skipLocked = false): Promise<number> {
    const sql = skipLocked ? CANCEL_STALE_SKIPPING_SQL : CANCEL_STALE_SQL;
    const cancelled = rowsOf<{ id: string }>(await m.query(sql, [endpoint.id, endpoint.epoch, limit, reason, at])).length;
    if (cancelled < limit) await m.query(CANCELLING_DONE_SQL, [endpoint.id]);
    return cancelled;
  }

  /**
   * A dispatcher pass's batch for one flagged endpoint (cancelStale under the endpoint's lock, taken first as
   * requests take it); null when the endpoint is held by another transaction or no longer flagged (skipped:
   * a pass never waits for a request or another instance).
   */
  async cancelStaleUnlessBusy(m: EntityManager, endpointId: string, reason: string, at: Date, limit: number): Promise<number | null> {
    const [row] = rowsOf<{ epoch: number }>(await m.query(LOCK_CANCELLING_ENDPOINT_SQL, [endpointId]));
    if (!row) return null;
    return this.cancelStale(m, { id: endpointId, epoch: row.epoch }, reason, at, limit, true);
  }

  /** Endpoints with pending deliveries of an older epoch still to cancel (at most `limit`). */
  async cancellingEndpoints(m: EntityManager, limit: number): Promise<CancellingEndpoint[]> {
    return rowsOf<CancellingEndpoint>(await m.query(CANCELLING_ENDPOINTS_SQL, [limit]));
  }

  /** The endpoint ids each event goes to (FAN_OUT_TARGETS), by the event's index in `events`. */
  async fanOutTargets(m: EntityManager, events: readonly FanOutEvent[]): Promise<Array<{ index: number; endpointId: string; epoch: number }>> {
    const rows = rowsOf<{ ord: number; endpoint_id: string; epoch: number }>(
      await m.query(FAN_OUT_TARGETS, [
        events.map((e) => e.id),
        events.map((e) => e.organizationId),
        events.map((e) => e.mode),
        events.map((e) => e.type),
        events.map((e) => e.createdAt.toISOString()),
        events.map((e) => e.objectId),
      ]),
    );
    return rows.map((r) => ({ index: r.ord - 1, endpointId: r.endpoint_id, epoch: r.epoch }));
  }

  /** Queues pending deliveries, due now, in one statement (the fan-out of a batch of events). */
  async insertFanOut(m: EntityManager, deliveries: readonly FanOutDelivery[]): Promise<void> {
    if (!deliveries.length) return;
    await m.query(
      `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, endpoint_epoch, event_id, status, attempt_count, next_attempt_at, created_at)
       SELECT d.id, d.organization_id, d.mode, d.endpoint_id, d.endpoint_epoch, d.event_id, 'pending', 0, now(), d.created_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::int[])
              AS d(id, organization_id, mode, endpoint_id, event_id, created_at, endpoint_epoch)`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.organizationId),
        deliveries.map((d) => d.mode),
        deliveries.map((d) => d.endpointId),
        deliveries.map((d) => d.eventId),
        deliveries.map((d) => d.createdAt.toISOString()),
        deliveries.map((d) => d.endpointEpoch),
      ],
    );
  }

  /**
   * Queues one delivery of an event (a redelivery), only while the event is still there: null when it has
   * gone since it was read (its month dropped by retention), or when the endpoint is not of the event's
   * organization and mode (its callers check that first; the statement does not rely on it). Reading it here also holds its month for this
   * transaction, so retention, which locks the tables before it checks what holds a month, sees the delivery.
   */
  async insertDelivery(m: EntityManager, row: { id: string; scope: Scope; endpointId: string; eventId: string; at: Date }): Promise<DeliveryRow | null> {
    const rows: DeliveryRow[] = await m.query(
      `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, endpoint_epoch, event_id, status, attempt_count, next_attempt_at, created_at)
       SELECT $1, $2, $3, $4, w.epoch, e.id, 'pending', 0, now(), $6
         FROM events e JOIN webhook_endpoints w ON w.id = $4 AND w.organization_id = $2 AND w.mode = $3
        WHERE e.id = $5 AND e.organization_id = $2 AND e.mode = $3
       RETURNING id, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at`,
      [row.id, row.scope.organizationId, row.scope.mode, row.endpointId, row.eventId, row.at],
    );
    return rows[0] ?? null;
  }

  async listAttempts(
    m: EntityManager,
    scope: Scope,
    endpointId: string,
    filter: { eventId?: string; limit: number; offset: number },
  ): Promise<{ items: AttemptView[]; total: number; exact: boolean }> {
    const { count, page, params } = attemptListStatements(scope.organizationId, scope.mode, endpointId, filter.eventId);
    const counted = await runBoundedCount((sql, values) => m.query(sql, values), count, params, filter);
    const items: AttemptView[] = await m.query(page, [...params, filter.limit, filter.offset]);
    return { items, ...counted };
  }

  /**
   * A pending delivery (waiting for a retry, being sent, or asked for again) of an event with an id in
   * [lower, upper), or null: the retention job's check before a month of deliveries goes (one partition).
   */
  async pendingOfEvents(m: EntityManager, lower: string, upper: string): Promise<string | null> {
    const rows = rowsOf<{ id: string }>(await m.query(PENDING_IN_RANGE_SQL, [lower, upper]));
    return rows[0]?.id ?? null;
  }
}
