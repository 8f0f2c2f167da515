import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { AttemptViewOut } from '../../domain/endpoint-view';

export interface AttemptList {
  items: AttemptViewOut[];
  total: number;
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
