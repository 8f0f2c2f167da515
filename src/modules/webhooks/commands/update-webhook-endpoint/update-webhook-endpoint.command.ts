import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EndpointView } from '../../domain/endpoint-view';

export interface WebhookEndpointChanges {
  url?: string;
  eventTypes?: string[];
  description?: string | null;
  /** true re-enables a disabled endpoint (its failure count starts again). */
  enabled?: boolean;
}

/** Changes the given fields of an endpoint; the others stay. */
export class UpdateWebhookEndpointCommand extends Command<EndpointView> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
    readonly changes: WebhookEndpointChanges,
  ) {
    super();
  }
}
