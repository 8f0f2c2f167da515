import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EndpointWithSecret } from '../../domain/endpoint-view';

/**
 * Issues a new signing secret. For `graceSeconds` after the rotation deliveries carry a signature
 * with the old secret as well, so receivers can switch without missing any; 0 revokes it at once.
 */
export class RotateWebhookSecretCommand extends Command<EndpointWithSecret> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
    readonly graceSeconds: number,
  ) {
    super();
  }
}
