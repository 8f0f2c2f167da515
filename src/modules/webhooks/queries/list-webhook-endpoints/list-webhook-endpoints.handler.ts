import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { renderEndpoint } from '../../domain/endpoint-view';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { EndpointList, ListWebhookEndpointsQuery } from './list-webhook-endpoints.query';

@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async execute({ scope, limit, offset }: ListWebhookEndpointsQuery): Promise<EndpointList> {
    const { items, total } = await this.endpoints.list(this.tx.readsFor(scope), scope, limit, offset);
    return { items: items.map(renderEndpoint), total, limit, offset, has_more: offset + items.length < total };
  }
}
