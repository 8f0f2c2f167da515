import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundPage } from '../../dto/refund.views';
import type { RefundFilter } from '../../persistence/refunds.repository';

/** The scope's refunds, newest first; ValidationFailedError (starting_after) for a cursor id not of the scope. */
export class ListRefundsQuery extends Query<RefundPage> {
  constructor(
    readonly scope: Scope,
    readonly filter: RefundFilter,
  ) {
    super();
  }
}
