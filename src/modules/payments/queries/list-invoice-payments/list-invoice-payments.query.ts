import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { PaymentView } from '../../dto/payment.views';

/**
 * The payments of one invoice in the invoice's scope, oldest first, for the invoice expansions
 * `payments` / `payments.provider`. `payer` true renders the payer view (no idempotency_key).
 * An unknown invoice simply has no payments.
 */
export class ListInvoicePaymentsQuery extends Query<PaymentView[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly options: { withProvider?: boolean; payer?: boolean } = {},
  ) {
    super();
  }
}
