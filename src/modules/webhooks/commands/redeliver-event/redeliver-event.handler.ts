import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { BadRequestError, NotFoundError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { GetEventQuery } from '../../../events';
import { WebhookDeliveriesRepository } from '../../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { QueuedDelivery, RedeliverEventCommand } from './redeliver-event.command';

@CommandHandler(RedeliverEventCommand)
export class RedeliverEventHandler implements ICommandHandler<RedeliverEventCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, endpointId, eventId }: RedeliverEventCommand): Promise<QueuedDelivery> {
    const now = this.clock.now();
    // Asked before the endpoint is locked: the events module reads on its own connection, and an event
    // never changes once recorded. An unknown endpoint is still answered first.
    const asked = await this.queries.execute(new GetEventQuery(scope, eventId)).then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    );
    return this.tx.run(async (m) => {
      const endpoint = await this.endpoints.find(m, scope, endpointId, true);
      if (!endpoint) throw new NotFoundError('webhook endpoint');
      if ('error' in asked) throw asked.error;
      const event = asked.found;
      if (!endpoint.enabled) {
        throw new BadRequestError('The webhook endpoint is disabled; enable it before redelivering', 'webhook_endpoint_disabled', { endpoint: 'is disabled' });
      }
      // Only what the endpoint receives: a receiver is not sent a type it never subscribed to (and may not handle).
      if (!endpoint.event_types.includes('*') && !endpoint.event_types.includes(event.type)) {
        throw new BadRequestError(
          `The webhook endpoint does not receive ${event.type} events; add the type to its event_types before redelivering`,
          'event_type_not_enabled',
          { event_id: `is a ${event.type} event, which this endpoint does not receive` },
        );
      }
      const row = await this.deliveries.insertDelivery(m, { id: newId('delivery'), scope, endpointId, eventId: event.id, at: now });
      // Gone since it was read above (retention dropped its month meanwhile): as unknown as if it had never been.
      if (!row) throw new NotFoundError('event');
      return { delivery_id: row.id, endpoint_id: endpointId, event_id: event.id, status: 'pending' as const, created_at: formatTimestamp(row.created_at) };
    });
  }
}
