import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { sealedWithPattern } from '../../../../shared/crypto/secret-box';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import { renderEndpoint } from '../../domain/endpoint-view';
import { generateSigningSecret } from '../../domain/secret';
import { WEBHOOK_ENDPOINT_EVENTS } from '../../events/webhook-endpoint.events';
import { WebhookDeliveriesRepository } from '../../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { ForgetLostKeyWebhookSecretsCommand, ForgottenWebhookSecrets } from './forget-lost-key.command';

const BATCH = 200;

/**
 * A live endpoint whose secret is lost is disabled, with pending deliveries cancelled and a
 * `webhook_endpoint.disabled` event, as after repeated failures: its receivers check signatures with
 * the secret they hold, which the service no longer has. The merchant rotates the secret
 * (POST /webhooks/{id}/rotate_secret), gives it to the receivers and enables the endpoint again.
 */
@CommandHandler(ForgetLostKeyWebhookSecretsCommand)
export class ForgetLostKeyWebhookSecretsHandler implements ICommandHandler<ForgetLostKeyWebhookSecretsCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ keyId }: ForgetLostKeyWebhookSecretsCommand): Promise<ForgottenWebhookSecrets> {
    const pattern = sealedWithPattern(keyId);
    const reason = `its signing secret was sealed with SECRETS_KEY ${keyId}, which is lost: rotate the secret, give it to the receivers and enable the endpoint again`;
    const result: ForgottenWebhookSecrets = { endpoints_disabled: 0, deleted_endpoints_reset: 0, previous_secrets_dropped: 0 };
    for (;;) {
      // Counted once committed: a transaction retried after a conflict would count its rows twice.
      const rows = await this.tx.run(async (m) => {
        const now = this.clock.now();
        const rows = await this.endpoints.forgetSecretsSealedWith(m, pattern, generateSigningSecret, reason, now, BATCH);
        for (const r of rows) {
          if (!r.secretLost || r.deleted) continue;
          await this.deliveries.cancelPending(m, r.id, 'endpoint disabled: its signing secret was lost', now);
          if (!r.wasEnabled) continue;
          const scope = { organizationId: r.organization_id, mode: r.mode } as Scope;
          const saved = await this.endpoints.find(m, scope, r.id);
          if (saved) {
            await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.disabled'], renderEndpoint(saved), {
              previousAttributes: { enabled: true, disabled_reason: null },
            });
          }
        }
        return rows;
      });
      for (const r of rows) {
        if (r.previousLost) result.previous_secrets_dropped += 1;
        if (r.secretLost && r.deleted) result.deleted_endpoints_reset += 1;
        else if (r.secretLost) result.endpoints_disabled += 1;
      }
      if (rows.length < BATCH) return result;
    }
  }
}
