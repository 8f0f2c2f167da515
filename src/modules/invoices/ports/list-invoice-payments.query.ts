import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';

/**
 * The invoice read's `payments` / `payments.provider` expansions, filled by the module that owns
 * payments: invoices asks, the payments module registers the handler (so invoices never imports
 * payments). Answers the payments of one invoice in the invoice's scope, oldest first, rendered as
 * the API renders a payment; `payer` true renders the payer view (no idempotency_key). An unknown
 * invoice simply has no payments.
 */
export class ListInvoicePaymentsQuery extends Query<object[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly options: { withProvider?: boolean; payer?: boolean } = {},
  ) {
    super();
  }
}
