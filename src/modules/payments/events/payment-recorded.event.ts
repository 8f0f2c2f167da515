import type { Scope } from '../../../shared/auth/request-context';
import type { RecordedPayment } from '../commands/record-provider-payment/record-provider-payment.command';

/**
 * Published on the event bus after the transaction of RecordProviderPaymentCommand commits, when a
 * payment was created or changed status (and with it, possibly, its invoice's state).
 */
export class PaymentRecordedEvent {
  constructor(readonly scope: Scope, readonly recorded: RecordedPayment, readonly at: Date) {}
}
