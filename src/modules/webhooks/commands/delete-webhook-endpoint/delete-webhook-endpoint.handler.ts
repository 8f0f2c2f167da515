import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import { renderEndpoint } from '../../domain/endpoint-view';
import { WebhookDeliveriesRepository } from '../../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { DeleteWebhookEndpointCommand, DeletedEndpoint } from './delete-webhook-endpoint.command';
import { WEBHOOK_ENDPOINT_EVENTS } from '../../events/webhook-endpoint.events';

@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, endpointId }: DeleteWebhookEndpointCommand): Promise<DeletedEndpoint> {
    const now = this.clock.now();
    return this.tx.run(async (m) => {
      const current = await this.endpoints.find(m, scope, endpointId, true);
      if (!current) throw new NotFoundError('webhook endpoint');
      await this.endpoints.markDeleted(m, scope, endpointId, now);
      await this.deliveries.cancelPending(m, endpointId, 'endpoint deleted', now);
      await this.outbox.record(m, scope, WEBHOOK_ENDPOINT_EVENTS['webhook_endpoint.deleted'], renderEndpoint({ ...current, updated_at: now }));
      return { id: endpointId, deleted: true as const };
    });
  }
}
