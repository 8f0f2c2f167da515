import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { EndpointView, renderEndpoint } from '../../domain/endpoint-view';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { GetWebhookEndpointQuery } from './get-webhook-endpoint.query';

@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async execute({ scope, endpointId }: GetWebhookEndpointQuery): Promise<EndpointView> {
    const row = await this.endpoints.find(this.tx.readsFor(scope), scope, endpointId);
    if (!row) throw new NotFoundError('webhook endpoint');
    return renderEndpoint(row);
  }
}
