import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export interface DeletedEndpoint {
  id: string;
  deleted: true;
}

/** Deletes an endpoint: nothing more is sent to it, pending deliveries are cancelled. */
export class DeleteWebhookEndpointCommand extends Command<DeletedEndpoint> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
  ) {
    super();
  }
}
