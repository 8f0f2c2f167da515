import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { AttemptViewOut } from '../../domain/endpoint-view';

export interface AttemptList {
  items: AttemptViewOut[];
  /** The matches, counted up to a cap (shared/db/bounded-count.ts: 10,000 or the page's end); past it, the count reached. */
  total: number;
  /** False when more attempts match than `total` says. */
  total_exact: boolean;
  limit: number;
  offset: number;
  has_more: boolean;
}

/** Delivery attempts to one endpoint, newest first; optionally those of one event. */
export class ListWebhookAttemptsQuery extends Query<AttemptList> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
    readonly filter: { eventId?: string; limit?: number; offset?: number },
  ) {
    super();
  }
}
