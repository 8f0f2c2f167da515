import type { IEvent } from '@nestjs/cqrs';
import type { Scope } from '../auth/request-context';

/** What every domain event carries: the outbox row's fields, with the resource as the API renders it. */
export interface DomainEventInit<T extends string = string, O = unknown> {
  id: string;
  type: T;
  scope: Scope;
  createdAt: Date;
  /** The resource as of the event, as its own endpoint renders it (the webhook's `data.object`). */
  object: O;
  /** On updates: the changed fields with their values before the change. */
  previousAttributes?: Record<string, unknown>;
}

/**
 * A change a module publishes on the CQRS EventBus once the transaction that recorded it has
 * committed (EventOutbox holds it until then). Each module declares its own subclass, its type names
 * and its object's type in its public surface (`declareEvents`); a module that reacts to another's
 * change registers an `@EventsHandler` for that class (in this process only, after commit, at most
 * once), or a durable handler (`@DurableEventHandler`, durable-handlers.ts: every committed event once,
 * in commit order, from its own cursor). The outbox row stays the durable record that webhooks deliver from.
 */
export abstract class DomainEvent<T extends string = string, O = unknown> implements IEvent {
  readonly id: string;
  readonly type: T;
  readonly scope: Scope;
  readonly createdAt: Date;
  readonly object: O;
  readonly previousAttributes?: Record<string, unknown>;

  constructor(init: DomainEventInit<T, O>) {
    this.id = init.id;
    this.type = init.type;
    this.scope = init.scope;
    this.createdAt = init.createdAt;
    this.object = init.object;
    if (init.previousAttributes) this.previousAttributes = init.previousAttributes;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each class narrows the object's type
export type DomainEventClass = new (init: DomainEventInit<any, any>) => DomainEvent;
