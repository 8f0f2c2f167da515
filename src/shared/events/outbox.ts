import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
import { writeBehind } from '../db/pipelined-transaction';
import { prepared } from '../db/prepared';
import { newId } from '../ids/ids';
import { Clock } from '../time/clock';
import { EVENT_COLUMNS } from './event-row';
import type { EventType } from './event-types';

export { EVENT_ROW_VALUES, withEventRow } from './event-row';

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

const INSERT_EVENT_SQL = prepared('event_insert', `INSERT INTO events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`);

/** An event whose row a combined statement (`withEventRow`) writes: the event and its row's values. */
export interface PendingEvent {
  event: OutboxEvent;
  /** id, organization_id, mode, type, data (JSON text), created_at. */
  values: unknown[];
}

/**
 * The transactional outbox. A writer calls `record` inside its own transaction, with its own
 * EntityManager, right after the change: the event row is written in that transaction, then each
 * subscriber registered with `subscribe` runs with the same manager, so everything commits or rolls
 * back with the change. Nothing is sent here (webhook deliveries are queued by a trigger on the
 * events table, in the statement that inserts the row). The kernel knows only the events table;
 * modules bring their own side effects. A writer may also insert the event row in its own statement
 * (`prepare`, `withEventRow`, then `written`): one round trip for the change and its event.
 *
 * `object` is the resource as the API renders it (ids, 30-digit amount strings, formatted
 * timestamps): it is stored as JSON and sent unchanged as `data.object`.
 */
@Injectable()
export class EventOutbox {
  private readonly subscribers: Array<{ name: string; run: OutboxSubscriber }> = [];

  constructor(@Inject(Clock) private readonly clock: Clock) {}

  /** Adds a subscriber (once per name; a module registers when it starts). */
  subscribe(name: string, run: OutboxSubscriber): void {
    if (this.subscribers.some((s) => s.name === name)) throw new Error(`outbox subscriber ${name} registered twice`);
    this.subscribers.push({ name, run });
  }

  /**
   * True when recording an event runs subscribers, which write with the writer's manager: a writer
   * that would otherwise send its change and event as one statement outside a transaction needs one.
   */
  get hasSubscribers(): boolean {
    return this.subscribers.length > 0;
  }

  async record(m: EntityManager, scope: Scope, type: EventType, object: object, options: RecordEventOptions = {}): Promise<RecordedEvent> {
    const pending = this.prepare(scope, type, object, options);
    await this.insert(m, pending);
    return this.written(m, pending);
  }

  /**
   * Inserts a prepared event's row by itself; `written` follows. Nothing is read back, so in a
   * transaction it does not wait for the answer (`writeBehind`): after an invoice's last move its
   * second event (invoice.completed) leaves with COMMIT.
   */
  async insert(m: EntityManager, pending: PendingEvent): Promise<void> {
    await writeBehind(m, INSERT_EVENT_SQL, pending.values);
  }

  /** The event and its row's values, for a statement made by `withEventRow`; call `written` once it ran. */
  prepare(scope: Scope, type: EventType, object: object, options: RecordEventOptions = {}): PendingEvent {
    const id = newId('event');
    const createdAt = this.clock.now();
    const data: Record<string, unknown> = { object };
    if (options.previousAttributes) data.previous_attributes = options.previousAttributes;
    return { event: { id, type, createdAt, scope }, values: [id, scope.organizationId, scope.mode, type, JSON.stringify(data), createdAt] };
  }

  /** After the event's row is written (in `m`'s transaction): runs the subscribers with the same manager. */
  async written(m: EntityManager, { event }: PendingEvent): Promise<RecordedEvent> {
    for (const s of this.subscribers) await s.run(m, event);
    return { id: event.id, type: event.type, createdAt: event.createdAt };
  }
}
