import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EventPayload } from '../../../../shared/events/event-payload';

/** One event of the caller's organization and mode; 404 otherwise. */
export class GetEventQuery extends Query<EventPayload> {
  constructor(
    readonly scope: Scope,
    readonly eventId: string,
  ) {
    super();
  }
}
