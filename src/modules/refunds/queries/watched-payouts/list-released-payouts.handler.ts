import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ListReleasedPayoutsQuery, type ReleasedPayout } from '../../../payouts';
import { RefundsRepository } from '../../persistence/refunds.repository';

/** Answers the payout worker's ListReleasedPayoutsQuery (payouts' port): refunds whose payout was taken back after the grace, still watched. */
@QueryHandler(ListReleasedPayoutsQuery)
export class ListReleasedPayoutsHandler implements IQueryHandler<ListReleasedPayoutsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ since, cap, limit }: ListReleasedPayoutsQuery): Promise<ReleasedPayout[]> {
    const released: ReleasedPayout[] = [];
    for (const { id, organization_id, mode } of await this.refunds.releasedPayouts(this.tx.manager, since, cap, limit)) {
      const scope: Scope = { organizationId: organization_id as never, mode };
      const row = await this.refunds.find(this.tx.manager, scope, id);
      if (!row?.released_tx_hash || !row.network || !row.address || !row.payout_units) continue;
      released.push({
        id,
        scope,
        status: row.status,
        network: row.network,
        address: row.address,
        tokenContract: row.token_contract,
        units: row.payout_units,
        claimedHeight: row.claimed_height,
        txHash: row.released_tx_hash,
      });
    }
    return released;
  }
}
