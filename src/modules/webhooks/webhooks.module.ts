import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { loadWebhooksConfig, WebhooksConfig } from './webhooks.config';
import { CreateWebhookEndpointHandler } from './commands/create-webhook-endpoint/create-webhook-endpoint.handler';
import { DeleteWebhookEndpointHandler } from './commands/delete-webhook-endpoint/delete-webhook-endpoint.handler';
import { RedeliverEventHandler } from './commands/redeliver-event/redeliver-event.handler';
import { SealStoredSecretsHandler } from './commands/seal-stored-secrets/seal-stored-secrets.handler';
import { ForgetLostKeyWebhookSecretsHandler } from './commands/forget-lost-key/forget-lost-key.handler';
import { RotateWebhookSecretHandler } from './commands/rotate-webhook-secret/rotate-webhook-secret.handler';
import { UpdateWebhookEndpointHandler } from './commands/update-webhook-endpoint/update-webhook-endpoint.handler';
import { WebhookDispatcher } from './dispatch/webhook-dispatcher';
import { WebhookFanOutHandler } from './dispatch/webhook-fan-out.handler';
import { WebhookUrlPolicy } from './dispatch/webhook-url-policy';
import { EndpointResolver } from './dispatch/endpoint-resolver';
import { WebhookDeliveriesRepository } from './persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './persistence/webhook-endpoints.repository';
import { GetWebhookEndpointHandler } from './queries/get-webhook-endpoint/get-webhook-endpoint.handler';
import { ListWebhookAttemptsHandler } from './queries/list-webhook-attempts/list-webhook-attempts.handler';
import { ListWebhookEndpointsHandler } from './queries/list-webhook-endpoints/list-webhook-endpoints.handler';
import { WebhooksController } from './webhooks.controller';
import { WebhookDeliveriesRetention } from './webhook-deliveries-retention';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/**
 * Webhook endpoints and the dispatcher that sends committed deliveries. A delivery per subscribed
 * endpoint is queued after each event's commit by the durable handler `webhooks.fan_out`
 * (WebhookFanOutHandler), which then brings the dispatcher's next pass forward.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookUrlPolicy,
    EndpointResolver,
    WebhookDispatcher,
    { provide: WebhooksConfig, useFactory: () => loadWebhooksConfig(process.env) },
    WebhookFanOutHandler,
    WebhookDeliveriesRetention,
    CreateWebhookEndpointHandler,
    UpdateWebhookEndpointHandler,
    DeleteWebhookEndpointHandler,
    RotateWebhookSecretHandler,
    SealStoredSecretsHandler,
    ForgetLostKeyWebhookSecretsHandler,
    RedeliverEventHandler,
    ListWebhookEndpointsHandler,
    GetWebhookEndpointHandler,
    ListWebhookAttemptsHandler,
  ],
  exports: [WebhookDispatcher],
})
export class WebhooksModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('webhook', 'webhook_endpoint_not_found', async (scope, id) => (await this.endpoints.find(this.tx.manager, scope, id)) !== null);
  }
}
