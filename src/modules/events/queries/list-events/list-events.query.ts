import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EventPayload } from '../../../../shared/events/event-payload';

export interface EventList {
  items: EventPayload[];
  /** The matches, counted up to a cap (shared/db/bounded-count.ts: 10,000 or the page's end); past it, the count reached. */
  total: number;
  /** False when more events match than `total` says (the count stopped at its cap). */
  total_exact: boolean;
  limit: number;
  offset: number;
  has_more: boolean;
}

export interface ListEventsFilter {
  types?: string[];
  createdAtFrom?: string;
  createdAtTo?: string;
  /** Only the events whose `data.object.id` is one of these (an invoice's, its payments' and refunds'). */
  objectIds?: string[];
  limit?: number;
  offset?: number;
}

/** Events of the caller's organization and mode, newest first. */
export class ListEventsQuery extends Query<EventList> {
  constructor(
    readonly scope: Scope,
    readonly filter: ListEventsFilter,
  ) {
    super();
  }
}
