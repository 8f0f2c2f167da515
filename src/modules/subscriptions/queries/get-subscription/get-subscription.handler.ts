import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { subscriptionView, SubscriptionView } from '../../dto/subscription.view';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { GetSubscriptionQuery } from './get-subscription.query';

@QueryHandler(GetSubscriptionQuery)
export class GetSubscriptionHandler implements IQueryHandler<GetSubscriptionQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
  ) {}

  async execute({ scope, subscriptionId }: GetSubscriptionQuery): Promise<SubscriptionView> {
    const record = await this.repo.find(this.tx.readsFor(scope), scope, subscriptionId);
    if (!record) throw new NotFoundError('subscription');
    return subscriptionView(record);
  }
}
