import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { CheckPayoutAddressQuery } from '../../../rails';
import { CheckPayoutDestinationQuery, PayoutDestination } from './check-payout-destination.query';

@QueryHandler(CheckPayoutDestinationQuery)
export class CheckPayoutDestinationHandler implements IQueryHandler<CheckPayoutDestinationQuery> {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  async execute({ mode, methods, providerId, address }: CheckPayoutDestinationQuery): Promise<PayoutDestination> {
    const method = methods.find((m) => m.provider_id === providerId);
    if (!method) {
      throw new ValidationFailedError({ provider_id: `must be one of ${methods.map((m) => m.provider_id).join(', ') || '(no payout method is configured)'}` });
    }
    // The payout facts of the network (address form, URI standard) are its rail adapter's.
    const checked = await this.queries.execute(new CheckPayoutAddressQuery(mode, method.network, address));
    if (!checked.ok) throw new ValidationFailedError({ address: checked.problem });
    return { method, address: checked.address };
  }
}
