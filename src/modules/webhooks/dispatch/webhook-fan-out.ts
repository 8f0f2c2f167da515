import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { prepared } from '../../../shared/db/prepared';
import { EventOutbox, OutboxEvent } from '../../../shared/events/outbox';
import { newId } from '../../../shared/ids/ids';

/** The enabled endpoints of the organization and mode that take the event's type. */
const SUBSCRIBED_ENDPOINTS_SQL = prepared(
  'event_endpoints',
  `SELECT id FROM webhook_endpoints
    WHERE organization_id = $1 AND mode = $2 AND enabled AND deleted_at IS NULL
      AND ('*' = ANY(event_types) OR $3 = ANY(event_types))
    ORDER BY id`,
);

const QUEUE_DELIVERIES_SQL = `INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, created_at)
  SELECT t.delivery_id, $3, $4, t.endpoint_id, $5, 'pending', 0, now(), $6
    FROM unnest($1::text[], $2::text[]) AS t(delivery_id, endpoint_id)`;

/**
 * Queues one pending delivery per enabled endpoint of the event's organization and mode that
 * subscribes to its type, in the transaction that records the event (an outbox subscriber). The
 * dispatcher sends them once committed.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(@Inject(EventOutbox) private readonly outbox: EventOutbox) {}

  onModuleInit(): void {
    this.outbox.subscribe('webhook deliveries', (m, event) => this.queue(m, event));
  }

  async queue(m: EntityManager, { id, type, createdAt, scope }: OutboxEvent): Promise<void> {
    const endpoints: Array<{ id: string }> = await m.query(SUBSCRIBED_ENDPOINTS_SQL, [scope.organizationId, scope.mode, type]);
    if (!endpoints.length) return;
    await m.query(QUEUE_DELIVERIES_SQL, [endpoints.map(() => newId('delivery')), endpoints.map((e) => e.id), scope.organizationId, scope.mode, id, createdAt]);
  }
}
