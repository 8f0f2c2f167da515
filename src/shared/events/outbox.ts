import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
import { prepared } from '../db/prepared';
import { newId } from '../ids/ids';
import { Clock } from '../time/clock';
import type { EventType } from './event-types';

export interface RecordEventOptions {
  /**
   * The fields that changed, with their values before the change (e.g. `{ status: 'PENDING' }`
   * on `invoice.updated`). Sent as `data.previous_attributes`.
   */
  previousAttributes?: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  /** How many webhook deliveries were queued for it. */
  deliveries: number;
}

/**
 * The transactional outbox. A writer calls `record` inside its own transaction, with its own
 * EntityManager, right after the change: the event row and one pending delivery per enabled
 * webhook endpoint of the same organization and mode that subscribes to the type are written in
 * that transaction, so they commit or roll back with the change. Nothing is sent here; the
 * webhook dispatcher sends committed deliveries.
 *
 * `object` is the resource as the API renders it (ids, 30-digit amount strings, formatted
 * timestamps): it is stored as JSON and sent unchanged as `data.object`.
 */
const INSERT_EVENT_SQL = prepared(
  'event_insert',
  `INSERT INTO events (id, organization_id, mode, type, data, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
);

/** The enabled endpoints of the organization and mode that take the event's type. */
const SUBSCRIBED_ENDPOINTS_SQL = prepared(
  'event_endpoints',
  `SELECT id FROM webhook_endpoints
    WHERE organization_id = $1 AND mode = $2 AND enabled AND deleted_at IS NULL
      AND ('*' = ANY(event_types) OR $3 = ANY(event_types))
    ORDER BY id`,
);

@Injectable()
export class EventOutbox {
  constructor(@Inject(Clock) private readonly clock: Clock) {}

  async record(m: EntityManager, scope: Scope, type: EventType, object: object, options: RecordEventOptions = {}): Promise<RecordedEvent> {
    const id = newId('event');
    const createdAt = this.clock.now();
    const data: Record<string, unknown> = { object };
    if (options.previousAttributes) data.previous_attributes = options.previousAttributes;
    await m.query(
      INSERT_EVENT_SQL,
      [id, scope.organizationId, scope.mode, type, JSON.stringify(data), createdAt],
    );
    const endpoints: Array<{ id: string }> = await m.query(
      SUBSCRIBED_ENDPOINTS_SQL,
      [scope.organizationId, scope.mode, type],
    );
    if (endpoints.length) {
      await m.query(
        `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
         SELECT t.delivery_id, $3, $4, t.endpoint_id, $5, 'pending', 0, now(), $6
           FROM unnest($1::text[], $2::text[]) AS t(delivery_id, endpoint_id)`,
        [endpoints.map(() => newId('delivery')), endpoints.map((e) => e.id), scope.organizationId, scope.mode, id, createdAt],
      );
    }
    return { id, type, createdAt, deliveries: endpoints.length };
  }
}
