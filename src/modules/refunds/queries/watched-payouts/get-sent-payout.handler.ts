import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { GetSentPayoutQuery, type SentPayout } from '../../../payouts';
import { RefundsRepository } from '../../persistence/refunds.repository';

/** Answers the payout worker's GetSentPayoutQuery (payouts' port): a SENT refund's payout and reported transaction. */
@QueryHandler(GetSentPayoutQuery)
export class GetSentPayoutHandler implements IQueryHandler<GetSentPayoutQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  async execute({ scope, id }: GetSentPayoutQuery): Promise<SentPayout | null> {
    const row = await this.refunds.find(this.tx.manager, scope, id);
    if (!row || row.status !== 'SENT' || !row.tx_hash || !row.network || !row.address || !row.payout_units) return null;
    return {
      id: row.id,
      scope,
      network: row.network,
      address: row.address,
      tokenContract: row.token_contract,
      units: row.payout_units,
      txHash: row.tx_hash,
      claimedHeight: row.claimed_height,
      seenUnmined: row.tx_seen_unmined,
      missingSince: row.tx_missing_since,
    };
  }
}
