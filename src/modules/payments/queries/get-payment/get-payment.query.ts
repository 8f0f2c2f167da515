import { Query } from '@nestjs/cqrs';
import type { PaymentView } from '../../dto/payment.views';
import type { PaymentAccess } from '../../persistence/payments.repository';
import type { PaymentExpansion } from '../list-payments/list-payments.query';

/**
 * One payment. `access` null = a payer without a key (decisions §3): the id is the capability and
 * the payer view leaves out idempotency_key. NotFoundError (404) outside the caller's scope.
 */
export class GetPaymentQuery extends Query<PaymentView> {
  constructor(
    readonly access: PaymentAccess,
    readonly paymentId: string,
    readonly expand: readonly PaymentExpansion[] = [],
  ) {
    super();
  }
}
