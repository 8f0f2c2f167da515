import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { InvoiceStatus, InvoiceSubstatus } from '../../../invoices';
import type { PaymentStatus } from '../../domain/payment-status';
import type { TestPaymentKind } from '../../domain/test-payment';

export interface TestPaymentView {
  id: string;
  kind: TestPaymentKind;
  provider_id: string;
  currency: string;
  /** The amount paid, in the provider's currency (30 fractional digits). */
  price: string;
  status: PaymentStatus;
  /** False when `idempotency_key` named a payment made before: that payment is answered, nothing is paid again. */
  created: boolean;
  invoice: { id: string; status: InvoiceStatus; substatus: InvoiceSubstatus | null };
}

/**
 * A payer's simulated payment of a TEST-mode invoice (decisions §17): the checkout page's test-payment
 * control, for providers that have no rail. `access` null = a payer without a key (the invoice id is the
 * capability); a live invoice is 404, as if absent. The amount follows `kind` against what is still
 * due (domain/test-payment.ts) at the rates in force now, and the payment, COMPLETED at once, goes
 * through RecordProviderPaymentCommand like the test helpers' payments. `idempotencyKey` (the page
 * sends one per click) makes a repeat answer the first payment instead of paying again.
 */
export class MakeTestPaymentCommand extends Command<TestPaymentView> {
  constructor(
    readonly access: Scope | null,
    readonly invoiceId: string,
    readonly providerId: string,
    readonly kind: TestPaymentKind,
    readonly idempotencyKey: string | null,
  ) {
    super();
  }
}
