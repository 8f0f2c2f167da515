import { Query } from '@nestjs/cqrs';
import type { RefundClaimView } from '../../dto/refund.views';

/** A refund as its payer sees it through the claim token (null: no such claim), with the methods offered. */
export class GetRefundClaimQuery extends Query<(RefundClaimView & { mode: 'test' | 'live' }) | null> {
  constructor(readonly token: string) {
    super();
  }
}
