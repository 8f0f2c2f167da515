// The payments module's public surface: other modules and the composition root import only this file.
export { PaymentsModule } from './payments.module';
export {
  RecordProviderPaymentCommand,
  type NewPaymentReport,
  type PaymentChainReport,
  type PaymentConfirmationsReport,
  type PaymentStatusReport,
  type ProviderPaymentReport,
  type RecordedPayment,
} from './commands/record-provider-payment/record-provider-payment.command';
export { GetPaymentQuery } from './queries/get-payment/get-payment.query';
export { InvoicePaymentValuesQuery, type PaymentValue } from './queries/invoice-payment-values/invoice-payment-values.query';
export { ListPaymentsQuery, type PaymentExpansion } from './queries/list-payments/list-payments.query';
export type { PaymentListFilter } from './persistence/payment-list';
export type { PaymentPage } from './dto/payment.views';
export { PAYMENT_STATUSES, type PaymentStatus } from './domain/payment-status';
// Its events (published on the EventBus after commit; webhooks deliver them from the outbox).
export { PaymentEvent, PAYMENT_EVENT_TYPES, type PaymentEventType } from './events/payment.events';
