import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { boundedListFields } from '../../../../shared/db/bounded-count';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { renderAttempt } from '../../domain/endpoint-view';
import { WebhookDeliveriesRepository } from '../../persistence/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { AttemptList, ListWebhookAttemptsQuery } from './list-webhook-attempts.query';

@QueryHandler(ListWebhookAttemptsQuery)
export class ListWebhookAttemptsHandler implements IQueryHandler<ListWebhookAttemptsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(WebhookDeliveriesRepository) private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  async execute({ scope, endpointId, filter }: ListWebhookAttemptsQuery): Promise<AttemptList> {
    const m = this.tx.readsFor(scope);
    if (!(await this.endpoints.find(m, scope, endpointId))) throw new NotFoundError('webhook endpoint');
    const limit = filter.limit ?? 20;
    const offset = filter.offset ?? 0;
    const { items, total, exact } = await this.deliveries.listAttempts(m, scope, endpointId, { eventId: filter.eventId, limit, offset });
    return { items: items.map(renderAttempt), ...boundedListFields({ limit, offset, shown: items.length }, { total, exact }) };
  }
}
