import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EndpointWithSecret } from '../../domain/endpoint-view';

export interface NewWebhookEndpoint {
  url: string;
  /** Event types, or `['*']` for all. */
  eventTypes: string[];
  description?: string | null;
  enabled?: boolean;
}

/** Registers a webhook endpoint; the signing secret is returned here and on rotation only. */
export class CreateWebhookEndpointCommand extends Command<EndpointWithSecret> {
  constructor(
    readonly scope: Scope,
    readonly input: NewWebhookEndpoint,
  ) {
    super();
  }
}
