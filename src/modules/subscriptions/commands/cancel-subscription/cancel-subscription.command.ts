import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { SubscriptionView } from '../../dto/subscription.view';

/**
 * Cancels now (CANCELED at once, nothing more billed) or, with `atPeriodEnd`, at the end of the
 * current period (it stays ACTIVE until then; ARREARS still bills the period it served).
 */
export class CancelSubscriptionCommand extends Command<SubscriptionView> {
  constructor(
    readonly scope: Scope,
    readonly subscriptionId: string,
    readonly atPeriodEnd: boolean,
  ) {
    super();
  }
}
