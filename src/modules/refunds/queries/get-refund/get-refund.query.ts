import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { RefundView } from '../../dto/refund.views';

export class GetRefundQuery extends Query<RefundView> {
  constructor(
    readonly scope: Scope,
    readonly refundId: string,
  ) {
    super();
  }
}
