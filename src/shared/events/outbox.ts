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
}

/** An event just written, as the outbox hands it to its subscribers (inside the writer's transaction). */
export interface OutboxEvent extends RecordedEvent {
  scope: Scope;
}

/**
 * Runs inside the writer's transaction, with its EntityManager, right after the event row is
 * written: what it writes commits or rolls back with the change. Throwing aborts the write.
 */
export type OutboxSubscriber = (m: EntityManager, event: OutboxEvent) => Promise<void>;

/**
 * The transactional outbox. A writer calls `record` inside its own transaction, with its own
 * EntityManager, right after the change: the event row is written in that transaction, then each
 * subscriber registered with `subscribe` runs with the same manager (the webhooks module queues its
 * deliveries this way), so everything commits or rolls back with the change. Nothing is sent here.
 * The kernel knows only the events table; modules bring their own side effects.
 *
 * `object` is the resource as the API renders it (ids, 30-digit amount strings, formatted
 * timestamps): it is stored as JSON and sent unchanged as `data.object`.
 */
const INSERT_EVENT_SQL = prepared(
  'event_insert',
  `INSERT INTO events (id, organization_id, mode, type, data, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
);

@Injectable()
export class EventOutbox {
  private readonly subscribers: Array<{ name: string; run: OutboxSubscriber }> = [];

  constructor(@Inject(Clock) private readonly clock: Clock) {}

  /** Adds a subscriber (once per name; a module registers when it starts). */
  subscribe(name: string, run: OutboxSubscriber): void {
    if (this.subscribers.some((s) => s.name === name)) throw new Error(`outbox subscriber ${name} registered twice`);
    this.subscribers.push({ name, run });
  }

  async record(m: EntityManager, scope: Scope, type: EventType, object: object, options: RecordEventOptions = {}): Promise<RecordedEvent> {
    const id = newId('event');
    const createdAt = this.clock.now();
    const data: Record<string, unknown> = { object };
    if (options.previousAttributes) data.previous_attributes = options.previousAttributes;
    await m.query(INSERT_EVENT_SQL, [id, scope.organizationId, scope.mode, type, JSON.stringify(data), createdAt]);
    const event: OutboxEvent = { id, type, createdAt, scope };
    for (const s of this.subscribers) await s.run(m, event);
    return { id, type, createdAt };
  }
}
