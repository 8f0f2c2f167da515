import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export interface QueuedDelivery {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending';
  created_at: string;
}

/** Queues one more delivery of an event to an endpoint (sent by the dispatcher like any other). */
export class RedeliverEventCommand extends Command<QueuedDelivery> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
    readonly eventId: string,
  ) {
    super();
  }
}
