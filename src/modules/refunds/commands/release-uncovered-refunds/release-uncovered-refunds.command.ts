import { Command } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';

/**
 * An invoice's payment is no longer COMPLETED (a chain reorganization took it back), or a refund SENT then is
 * open again (its payout taken back): its open refunds that the remaining COMPLETED payments no longer cover
 * are canceled, newest first, in `manager`'s transaction (the durable reaction's, or the take-back's). Answers
 * the ids canceled.
 */
export class ReleaseUncoveredRefundsCommand extends Command<string[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly manager: EntityManager,
  ) {
    super();
  }
}
