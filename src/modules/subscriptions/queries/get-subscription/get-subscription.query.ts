import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { SubscriptionView } from '../../dto/subscription.view';

/** One subscription of the caller's scope; 404 otherwise. */
export class GetSubscriptionQuery extends Query<SubscriptionView> {
  constructor(
    readonly scope: Scope,
    readonly subscriptionId: string,
  ) {
    super();
  }
}
