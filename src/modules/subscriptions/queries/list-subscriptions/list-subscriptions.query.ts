import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { SubscriptionPage } from '../../dto/subscription.view';
import type { SubscriptionFilters } from '../../persistence/subscriptions.repository';

/** One page of the scope's subscriptions, newest first; filters combine with AND. */
export class ListSubscriptionsQuery extends Query<SubscriptionPage> {
  constructor(
    readonly scope: Scope,
    readonly filters: SubscriptionFilters,
    readonly limit: number,
    readonly offset: number,
  ) {
    super();
  }
}
