import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { EventOutbox } from '../../../../shared/events/outbox';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { WebhookUrlPolicy } from '../../dispatch/webhook-url-policy';
import { EndpointWithSecret, renderEndpoint } from '../../domain/endpoint-view';
import { normalizeEventTypes } from '../../domain/event-selection';
import { generateSigningSecret } from '../../domain/secret';
import { EndpointRow, WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { CreateWebhookEndpointCommand } from './create-webhook-endpoint.command';
import { WEBHOOK_ENDPOINT_EVENTS } from '../../events/webhook-endpoint.events';

@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookUrlPolicy) private readonly urls: WebhookUrlPolicy,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, input }: CreateWebhookEndpointCommand): Promise<EndpointWithSecret> {
    const problem = await this.urls.problem(input.url);
    if (problem) throw new ValidationFailedError({ url: problem });
    const now = this.clock.now();
    const row: EndpointRow = {
      id: newId('webhook'),
      organization_id: scope.organizationId,
      mode: scope.mode,
      url: input.url,
      description: input.description ?? null,
      event_types: normalizeEventTypes(input.eventTypes),
      secret: generateSigningSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      enabled: input.enabled ?? true,
      disabled_reason: null,
      consecutive_failures: 0,
      created_at: now,
      updated_at: now,
    };
    const view = renderEndpoint(row);
    return this.tx.run(async (m) => {
      // Recorded before the insert: an endpoint is not sent the event of its own creation.
      await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.created'], view);
      await this.endpoints.insert(m, row);
      return { ...view, secret: row.secret };
    });
  }
}
