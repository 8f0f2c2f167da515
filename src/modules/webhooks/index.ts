// The webhooks module's public surface: other modules and the composition root import only this file.
export { WebhooksModule } from './webhooks.module';
export { WebhookDispatcher } from './dispatch/webhook-dispatcher';
export { loadWebhooksConfig, WebhooksConfig } from './webhooks.config';
export { CreateWebhookEndpointCommand, type NewWebhookEndpoint } from './commands/create-webhook-endpoint/create-webhook-endpoint.command';
export { UpdateWebhookEndpointCommand, type WebhookEndpointChanges } from './commands/update-webhook-endpoint/update-webhook-endpoint.command';
export { DeleteWebhookEndpointCommand, type DeletedEndpoint } from './commands/delete-webhook-endpoint/delete-webhook-endpoint.command';
export { RotateWebhookSecretCommand } from './commands/rotate-webhook-secret/rotate-webhook-secret.command';
export { SealStoredSecretsCommand } from './commands/seal-stored-secrets/seal-stored-secrets.command';
export { ForgetLostKeyWebhookSecretsCommand, type ForgottenWebhookSecrets } from './commands/forget-lost-key/forget-lost-key.command';
export { RedeliverEventCommand, type QueuedDelivery } from './commands/redeliver-event/redeliver-event.command';
export { GetWebhookEndpointQuery } from './queries/get-webhook-endpoint/get-webhook-endpoint.query';
export { ListWebhookEndpointsQuery, type EndpointList } from './queries/list-webhook-endpoints/list-webhook-endpoints.query';
export { ListWebhookAttemptsQuery, type AttemptList } from './queries/list-webhook-attempts/list-webhook-attempts.query';
export { WebhookEndpointEvent, WEBHOOK_ENDPOINT_EVENT_TYPES, type WebhookEndpointEventType } from './events/webhook-endpoint.events';
