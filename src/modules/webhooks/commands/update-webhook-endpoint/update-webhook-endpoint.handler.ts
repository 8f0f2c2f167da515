import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import { WebhookUrlPolicy } from '../../dispatch/webhook-url-policy';
import { EndpointView, renderEndpoint } from '../../domain/endpoint-view';
import { normalizeEventTypes } from '../../domain/event-selection';
import { WebhookDeliveriesRepository } from '../../persistence/webhook-deliveries.repository';
import { EndpointChanges, WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { UpdateWebhookEndpointCommand } from './update-webhook-endpoint.command';
import { WEBHOOK_ENDPOINT_EVENTS } from '../../events/webhook-endpoint.events';

@CommandHandler(UpdateWebhookEndpointCommand)
export class UpdateWebhookEndpointHandler implements ICommandHandler<UpdateWebhookEndpointCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(WebhookUrlPolicy) private readonly urls: WebhookUrlPolicy,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, endpointId, changes }: UpdateWebhookEndpointCommand): Promise<EndpointView> {
    if (changes.url !== undefined) {
      const problem = await this.urls.problem(changes.url);
      if (problem) throw new ValidationFailedError({ url: problem });
    }
    const now = this.clock.now();
    return this.tx.run(async (m) => {
      const current = await this.endpoints.find(m, scope, endpointId, true);
      if (!current) throw new NotFoundError('webhook endpoint');
      const before = renderEndpoint(current);
      const update: EndpointChanges = { updated_at: now };
      if (changes.url !== undefined) update.url = changes.url;
      if (changes.description !== undefined) update.description = changes.description;
      if (changes.eventTypes !== undefined) update.event_types = normalizeEventTypes(changes.eventTypes);
      if (changes.enabled === true && !current.enabled) {
        Object.assign(update, { enabled: true, disabled_reason: null, consecutive_failures: 0 });
      } else if (changes.enabled === false && current.enabled) {
        Object.assign(update, { enabled: false, disabled_reason: 'disabled through the API' });
      }
      const after = renderEndpoint({ ...current, ...update });
      const previous: Record<string, unknown> = {};
      for (const key of ['url', 'description', 'event_types', 'enabled', 'disabled_reason', 'consecutive_failures'] as const) {
        if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
      }
      if (Object.keys(previous).length === 0) return before;
      const saved = renderEndpoint(await this.endpoints.update(m, scope, endpointId, update));
      if (update.enabled === false) await this.deliveries.cancelPending(m, endpointId, 'endpoint disabled', now);
      await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.updated'], saved, { previousAttributes: previous });
      return saved;
    });
  }
}
