import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ServiceUnavailableError } from '../../../../shared/errors/domain-error';
import { PayoutChainTipQuery, PayoutUriQuery } from '../../../rails';
import { PayoutRequest, PayoutRequestQuery } from './payout-request.query';

@QueryHandler(PayoutRequestQuery)
export class PayoutRequestHandler implements IQueryHandler<PayoutRequestQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ mode, method, address, units, amount }: PayoutRequestQuery): Promise<PayoutRequest> {
    const uri = await this.queries.execute(new PayoutUriQuery(mode, method.rail?.network ?? method.network, address, units, amount, method.rail));
    // The chain's tip now: the payout must be mined after it (an older transaction to the address is no payout).
    // Test mode without a rail on the network: no chain to ask; the merchant simulates the payout.
    const tip = method.rail ? await this.queries.execute(new PayoutChainTipQuery(mode, method.rail.network)) : null;
    if (method.rail && tip === null) throw new ServiceUnavailableError(`The ${method.network} node does not answer right now; try again shortly`);
    return { uri, claimedHeight: tip };
  }
}
