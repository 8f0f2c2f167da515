import type { DomainEvent, DomainEventClass, DomainEventInit } from './domain-event';

/**
 * The one registry of event type names (webhook subscriptions, `POST /events` filters), filled by the
 * modules: each declares its own types with its event class (`declareEvents`, in its `events/` folder,
 * exported from its index.ts) when it is loaded, so adding an event edits only the owning module.
 * The list is kept sorted, so its order does not depend on the order modules are loaded in.
 */
const declared: string[] = [];
/** Subscribes an endpoint to every event type, including types added later. */
export const ALL_EVENTS = '*';
const classes = new Map<string, DomainEventClass>();

/** Every declared event type, sorted. A live list: it grows as modules load (read it at request time). */
export const EVENT_TYPES: readonly string[] = declared;
/** `*` and every declared event type: what a webhook endpoint may subscribe to (live, like EVENT_TYPES). */
const subscribable: string[] = [];
export const SUBSCRIBABLE_EVENT_TYPES: readonly string[] = subscribable;

/** A declared event type name (`invoice.updated`); each module narrows it to its own union. */
export type EventType = string;

/** At most this many event types in one filter or subscription (more than are declared, with room to grow). */
export const MAX_EVENT_TYPES = 100;

/**
 * One declared event type with the type of its object: what a writer hands `EventOutbox.record` /
 * `prepare`, so an undeclared type or an object of the wrong shape is a compile error. Made only by
 * `declareEvents` (a module exports its definitions from its `events/` folder).
 */
export interface EventDefinition<T extends string = string, O = unknown> {
  readonly type: T;
  /** The class the event is published as after commit (and handed to durable handlers). */
  readonly cls: DomainEventClass;
  /** Never set: carries the object's type for the compiler. */
  readonly payload?: O;
}

/** The definitions `declareEvents` returns: one per type, by type name. */
export type EventDefinitions<T extends string, O> = { readonly [K in T]: EventDefinition<K, O> };

/**
 * Declares a module's event types, recorded and published as instances of `cls`, and returns their
 * definitions by type name (`InvoiceEvents['invoice.created']`), which the module's writers record.
 * Each type must be one of the class's own type union; the object type is the class's.
 */
export function declareEvents<E extends DomainEvent, const T extends readonly E['type'][]>(
  cls: new (init: DomainEventInit<E['type'], E['object']>) => E,
  types: T,
): EventDefinitions<T[number], E['object']> {
  const definitions: Record<string, EventDefinition> = {};
  for (const type of types) {
    const known = classes.get(type);
    if (known && known !== cls) throw new Error(`event type ${type} is declared twice (${known.name}, ${cls.name})`);
    definitions[type] = Object.freeze({ type, cls });
    if (known) continue;
    classes.set(type, cls);
    declared.push(type);
  }
  declared.sort();
  subscribable.splice(0, subscribable.length, ALL_EVENTS, ...declared);
  return Object.freeze(definitions) as EventDefinitions<T[number], E['object']>;
}

/** The class a declared type is published as; undefined for a type no module declared. */
export function eventClassOf(type: string): DomainEventClass | undefined {
  return classes.get(type);
}

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && classes.has(value);
}

/** The message for a list holding something else: names the declared types as they are when it is shown. */
export function eventTypesMessage(withAll: boolean): (args: { property: string }) => string {
  return ({ property }) => `${property} must contain only ${withAll ? '* or ' : ''}these event types: ${EVENT_TYPES.join(', ')}`;
}
