import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
import { writeBehind } from '../db/pipelined-transaction';
import { prepared } from '../db/prepared';
import { newId } from '../ids/ids';
import { Clock } from '../time/clock';
import { EVENT_COLUMNS } from './event-row';
import type { DomainEvent } from './domain-event';
import type { EventDefinition, EventType } from './event-types';

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

/** An event just written: what the outbox publishes once the writer's transaction commits. */
export interface OutboxEvent extends RecordedEvent {
  scope: Scope;
}

const INSERT_EVENT_SQL = prepared('event_insert', `INSERT INTO events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`);

/** An event whose row a combined statement (`withEventRow`) writes: the event and its row's values. */
export interface PendingEvent {
  event: OutboxEvent;
  /** id, organization_id, mode, type, data (JSON text), created_at. */
  values: unknown[];
  /** The typed event published on the EventBus after commit. */
  published: DomainEvent;
}

/**
 * The transactional outbox. A writer calls `record` inside its own transaction, with its own
 * EntityManager, right after the change: the event row is written in that transaction, so it commits
 * or rolls back with the change (the webhooks module's durable handler queues its deliveries after the
 * commit; the kernel knows only the events table). A writer may also
 * insert the event row in its own statement (`prepare`, `withEventRow`, then `written`): one round
 * trip for the change and its event.
 *
 * Once the transaction commits, each event is published on the CQRS EventBus as the class its module
 * declared for its type (`declareEvents`), for other modules' `@EventsHandler`s (and a pass of the durable
 * handlers of its type starts: `afterCommit`): `written` holds it
 * until TransactionRunner reports the commit (`committed`), and publishes at once when the statement
 * ran on its own (it committed by itself). A rolled back transaction publishes nothing.
 *
 * `object` is the resource as the API renders it (ids, 30-digit amount strings, formatted
 * timestamps): it is stored as JSON and sent unchanged as `data.object`.
 */
@Injectable()
export class EventOutbox {
  /** Events written in a transaction still open, by its manager. */
  private readonly held = new WeakMap<EntityManager, DomainEvent[]>();
  private readonly logger = new Logger('EventOutbox');
  private readonly committedListeners: Array<(types: string[]) => void> = [];

  constructor(
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  /**
   * Records `event` (a definition its module declared: `InvoiceEvents['invoice.created']`) with its
   * object, which must have the definition's object type (checked by the compiler).
   */
  async record<T extends string, O extends object>(
    m: EntityManager,
    scope: Scope,
    event: EventDefinition<T, O>,
    object: NoInfer<O>,
    options: RecordEventOptions = {},
  ): Promise<RecordedEvent> {
    const pending = this.prepare(scope, event, object, options);
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
  prepare<T extends string, O extends object>(scope: Scope, event: EventDefinition<T, O>, object: NoInfer<O>, options: RecordEventOptions = {}): PendingEvent {
    const { type, cls } = event;
    const id = newId('event');
    const createdAt = this.clock.now();
    const data: Record<string, unknown> = { object };
    if (options.previousAttributes) data.previous_attributes = options.previousAttributes;
    const published = new cls({ id, type, scope, createdAt, object, previousAttributes: options.previousAttributes });
    return { event: { id, type, createdAt, scope }, values: [id, scope.organizationId, scope.mode, type, JSON.stringify(data), createdAt], published };
  }

  /**
   * After the event's row is written with `m`: held for publication when `m`'s transaction commits,
   * or published now when the statement ran outside a transaction (it committed by itself).
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- kept async: writers await it in their transaction
  async written(m: EntityManager, { event, published }: PendingEvent): Promise<RecordedEvent> {
    if (m.queryRunner?.isTransactionActive) {
      const list = this.held.get(m);
      if (list) list.push(published);
      else this.held.set(m, [published]);
    } else {
      this.publish([published]);
    }
    return { id: event.id, type: event.type, createdAt: event.createdAt };
  }

  /** The transaction of `m` committed: its events go out on the EventBus, in the order they were written. */
  committed(m: EntityManager): void {
    const list = this.held.get(m);
    if (!list) return;
    this.held.delete(m);
    this.publish(list);
  }

  /**
   * Calls `listener` with the types of the events each committed transaction (or lone statement) of
   * this process wrote, after they are published: the durable handlers' worker starts a pass on it.
   */
  afterCommit(listener: (types: string[]) => void): void {
    this.committedListeners.push(listener);
  }

  private publish(events: DomainEvent[]): void {
    try {
      this.bus.publishAll(events);
    } catch (e) {
      // The change is committed and its row is the durable record: a failing publication is logged, never the writer's error.
      this.logger.error({ msg: 'publishing committed events failed', err: (e as Error).message });
    }
    if (!this.committedListeners.length) return;
    const types = events.map((e) => e.type);
    for (const listener of this.committedListeners) {
      try {
        listener(types);
      } catch (e) {
        this.logger.error({ msg: 'a commit listener failed', err: (e as Error).message });
      }
    }
  }
}
