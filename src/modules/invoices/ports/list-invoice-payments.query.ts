import { Query } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';

/**
 * One payment of an invoice as the API renders it (interface "Payment"): the answer's contract. The
 * module that owns payments fills it; `provider` is the provider as the API renders it, present only
 * when asked for (`withProvider`), and opaque to invoices.
 */
export interface InvoicePayment {
  id: string;
  /** Left out of the payer view (no key): it is the provider's internal reference. */
  idempotency_key?: string | null;
  organization_id: string;
  provider_id: string;
  invoice_id: string | null;
  currency: string;
  /** Decimal strings with 30 fractional digits. */
  price: string;
  price_usd: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  created_at: string;
  updated_at: string | null;
  happened_at: string;
  provider?: object | null;
}

/**
 * The invoice read's `payments` / `payments.provider` expansions, filled by the module that owns
 * payments: invoices asks, the payments module registers the handler (so invoices never imports
 * payments). Answers the payments of one invoice in the invoice's scope, oldest first, rendered as
 * the API renders a payment; `payer` true renders the payer view (no idempotency_key). An unknown
 * invoice simply has no payments. `unitOfWork`: the caller's transaction, when it asks from inside one
 * (the read then runs on that transaction's connection, never on a second one from the pool).
 */
export class ListInvoicePaymentsQuery extends Query<InvoicePayment[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly options: { withProvider?: boolean; payer?: boolean; unitOfWork?: EntityManager } = {},
  ) {
    super();
  }
}
