import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { TransactionIdCheck } from '../../../rails';

export type { TransactionIdCheck };

/** A reported payout transaction id checked for its network's form and normalised as its node reads it (the rail adapter's rule). */
export class CheckPayoutTransactionIdQuery extends Query<TransactionIdCheck> {
  constructor(
    readonly mode: Mode,
    readonly network: string,
    readonly text: string,
  ) {
    super();
  }
}
