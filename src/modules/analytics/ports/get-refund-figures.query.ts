import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';

/** The refunds of a dashboard window (USD value as exact decimal text). */
export interface RefundFigures {
  /** Refunds created in the window that are not CANCELED or EXPIRED. */
  count: number;
  /** Refunds COMPLETED in the window. */
  completedCount: number;
  /** USD value of the refunds COMPLETED in the window. */
  refundedUsd: string;
}

/**
 * The dashboard's refund figures, answered by the module that owns refunds (the arrow points
 * refunds -> analytics): analytics asks, the refunds module registers the handler.
 */
export class GetRefundFiguresQuery extends Query<RefundFigures> {
  constructor(
    readonly scope: Scope,
    /** Inclusive. */
    readonly from: Date,
    /** Exclusive. */
    readonly to: Date,
  ) {
    super();
  }
}
