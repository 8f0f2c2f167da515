import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { UnmatchedTransferPage } from '../../dto/unmatched.views';
import type { UnmatchedStatus } from '../../domain/unmatched-transfer';

export interface UnmatchedTransferFilter {
  status?: UnmatchedStatus[];
  /** Cursor: the items after this id (the last of the previous page). */
  startingAfter?: string;
  limit: number;
  offset: number;
}

/**
 * Transfers into the organization's deposit addresses that no payment records (the payments module
 * refused them), newest first. ValidationFailedError (starting_after) when the cursor id is not one
 * of the organization's in this mode.
 */
export class ListUnmatchedTransfersQuery extends Query<UnmatchedTransferPage> {
  constructor(
    readonly scope: Scope,
    readonly filter: UnmatchedTransferFilter,
  ) {
    super();
  }
}
