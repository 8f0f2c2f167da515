import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { EventCursor } from '../../../shared/events/durable-handlers';
import type { StoredEvent } from '../../../shared/events/event-payload';
import { runBoundedCount } from '../../../shared/db/bounded-count';
import { type EventFilter, eventListStatements, FIND_EVENT_SQL, FIRST_UNREAD_IN_RANGE_SQL } from './event-statements';

export type { EventFilter } from './event-statements';

/** Reads the events the outbox wrote; every query is scoped by organization and mode. */
@Injectable()
export class EventsRepository {
  /** A page and the matches' count, exact up to the cap of shared/db/bounded-count.ts (or the page's end): `exact` false past it. */
  async list(m: EntityManager, scope: Scope, filter: EventFilter): Promise<{ items: StoredEvent[]; total: number; exact: boolean }> {
    const { count, page, params } = eventListStatements(scope.organizationId, scope.mode, filter);
    const counted = await runBoundedCount((sql, values) => m.query(sql, values), count, params, filter);
    const items: StoredEvent[] = await m.query(page, [...params, filter.limit, filter.offset]);
    return { items, ...counted };
  }

  async find(m: EntityManager, scope: Scope, id: string): Promise<StoredEvent | null> {
    const rows: StoredEvent[] = await m.query(FIND_EVENT_SQL, [scope.organizationId, scope.mode, id]);
    return rows[0] ?? null;
  }

  /**
   * An event with an id in [lower, upper) after `cursor` in commit order (one a durable handler has
   * not read yet), or null: the retention job's check before a month goes (one partition, its commit-order index).
   */
  async firstAfter(m: EntityManager, lower: string, upper: string, cursor: EventCursor): Promise<string | null> {
    const rows: Array<{ id: string }> = await m.query(FIRST_UNREAD_IN_RANGE_SQL, [lower, upper, cursor.transactionId, cursor.position]);
    return rows[0]?.id ?? null;
  }
}
