import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ListSentPayoutsQuery } from '../../../payouts';
import { RefundsRepository } from '../../persistence/refunds.repository';

/**
 * Answers the payout worker's ListSentPayoutsQuery (payouts' port): SENT refunds, a fair batch stamped
 * checked, so one the worker cannot finish this pass goes to the back of its organization's line.
 */
@QueryHandler(ListSentPayoutsQuery)
export class ListSentPayoutsHandler implements IQueryHandler<ListSentPayoutsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ cap, limit }: ListSentPayoutsQuery): Promise<Array<{ id: string; scope: Scope }>> {
    const sent = await this.refunds.sent(this.tx.manager, cap, limit);
    return sent.map(({ id, organization_id, mode }) => ({ id, scope: { organizationId: organization_id as never, mode } }));
  }
}
