import { Command } from '@nestjs/cqrs';

export interface ForgottenWebhookSecrets {
  /** Endpoints disabled because their signing secret was sealed with the lost key (each has a new secret now). */
  endpoints_disabled: number;
  /** Deleted endpoints whose secret was replaced the same way (nothing is sent to them). */
  deleted_endpoints_reset: number;
  /** Previous secrets of a rotation's grace period dropped (the grace ends). */
  previous_secrets_dropped: number;
}

/**
 * Gives up the webhook signing secrets sealed with a SECRETS_KEY that is lost for good (`keyId`, 8 hex
 * characters): the operator's last resort, so the service starts again (`cli secrets:forget-key`).
 */
export class ForgetLostKeyWebhookSecretsCommand extends Command<ForgottenWebhookSecrets> {
  constructor(readonly keyId: string) {
    super();
  }
}
