import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { CheckPayoutQuery } from '../../../rails';
import { judgePayout } from '../../domain/payout-verdict';
import { PayoutVerification, VerifyPayoutQuery } from './verify-payout.query';

@QueryHandler(VerifyPayoutQuery)
export class VerifyPayoutHandler implements IQueryHandler<VerifyPayoutQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ mode, network, txHash, address, tokenContract, units, window }: VerifyPayoutQuery): Promise<PayoutVerification> {
    // The transaction as the network's rail adapter reads it with the watcher's node clients.
    const check = await this.queries.execute(new CheckPayoutQuery(mode, network, txHash, address, tokenContract));
    if (check.state === 'unavailable' || check.state === 'unknown' || check.state === 'pending') return check;
    return {
      state: 'judged',
      verdict: judgePayout(check, units, window),
      confirmations: check.confirmations,
      transfers: check.state === 'mined' ? check.transfers : [],
    };
  }
}
