import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { UpcomingInvoiceView } from '../../dto/subscription.view';

/** The next period invoice of a subscription as it would be issued now (usage so far); 404 when none will be. */
export class UpcomingInvoiceQuery extends Query<UpcomingInvoiceView> {
  constructor(
    readonly scope: Scope,
    readonly subscriptionId: string,
  ) {
    super();
  }
}
