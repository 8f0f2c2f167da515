import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { SubscriptionPage, subscriptionView } from '../../dto/subscription.view';
import { SubscriptionsRepository } from '../../persistence/subscriptions.repository';
import { ListSubscriptionsQuery } from './list-subscriptions.query';

@QueryHandler(ListSubscriptionsQuery)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptionsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
  ) {}

  async execute({ scope, filters, limit, offset }: ListSubscriptionsQuery): Promise<SubscriptionPage> {
    const { items, total } = await this.repo.list(this.tx.readsFor(scope), scope, filters, limit, offset);
    return { items: items.map(subscriptionView), total, limit, offset, has_more: offset + items.length < total };
  }
}
