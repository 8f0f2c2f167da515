import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { PaymentPage } from '../../dto/payment.views';
import type { PaymentListFilter } from '../../persistence/payment-list';

export type PaymentExpansion = 'provider';

/** One page of the scope's payments, newest first (decisions §5), optionally with providers. */
export class ListPaymentsQuery extends Query<PaymentPage> {
  constructor(
    readonly scope: Scope,
    readonly filter: PaymentListFilter,
    readonly expand: readonly PaymentExpansion[] = [],
  ) {
    super();
  }
}
