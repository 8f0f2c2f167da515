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

/**
 * Endpoints an organization may have in one mode (as Stripe's 16 an account). Every event is fanned out
 * to each endpoint that takes it, in one shared pass for all organizations: without a cap, one
 * organization's thousands of endpoints would make every batch of events millions of deliveries and
 * hold up everyone's webhooks.
 */
export const MAX_ENDPOINTS = 16;

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
      // Counted with the organization's mode held, so two creates at once cannot both pass the cap.
      const count = await this.endpoints.countHeld(m, scope);
      if (count >= MAX_ENDPOINTS) {
        throw new ValidationFailedError(
          { url: `is one more endpoint than the ${MAX_ENDPOINTS} an organization may have in ${scope.mode} mode: delete one, or add event types to one` },
          undefined,
          'too_many_endpoints',
        );
      }
      // Recorded before the insert: an endpoint is not sent the event of its own creation.
      await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.created'], view);
      await this.endpoints.insert(m, row);
      return { ...view, secret: row.secret };
    });
  }
}
