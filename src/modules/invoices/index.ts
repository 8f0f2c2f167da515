// The invoices module's public surface: other modules and the composition root import only this file.
export { InvoicesModule } from './invoices.module';
export {
  CreateInvoiceCommand,
  type CreateInvoiceInput,
  type CreateItemInput,
  type SubscriptionPeriodInput,
} from './commands/create-invoice/create-invoice.command';
export { ChangeInvoiceStatusCommand } from './commands/change-invoice-status/change-invoice-status.command';
// The console's new-invoice form validates as POST /invoices/create does.
export { CreateInvoiceRequestDto } from './dto/create-invoice.request.dto';
export { UpdateInvoiceRequestDto } from './dto/update-invoice.request.dto';
export { invoiceChangeCommand } from './commands/invoice-change';
// Sent by the refunds module when a refund completes (in its transaction).
export { SetInvoiceRefundedCommand } from './commands/set-invoice-refunded/set-invoice-refunded.command';
export { ChangeInvoiceCurrencyCommand } from './commands/change-invoice-currency/change-invoice-currency.command';
export { type InvoiceUpdated } from './commands/invoice-change';
export { GetInvoiceQuery } from './queries/get-invoice/get-invoice.query';
export { GetPayableInvoiceQuery, type PayableInvoice } from './queries/get-payable-invoice/get-payable-invoice.query';
export { GetInvoiceStatusesQuery, type InvoiceStatusEntry } from './queries/get-invoice-statuses/get-invoice-statuses.query';
export { GetShortStateQuery, type InvoiceShortState } from './queries/get-short-state/get-short-state.query';
export { ListInvoicesQuery, type InvoicePage } from './queries/list-invoices/list-invoices.query';
export type { InvoiceListFilter } from './persistence/invoice-list';
export { ClockMoveFirst, PayableInvoices, type InvoiceStateChange } from './payable-invoices.service';
// The one summary of an invoice's payments: the payments module fills it, the settlement decides the state.
export { NO_PAYMENTS, type PaymentTotals } from './domain/payment-totals';
export { InvoiceClocks } from './invoice-clocks.service';
export { InvoicesConfig, loadInvoicesConfig } from './invoices.config';
export {
  INVOICE_STATUSES,
  FINAL_STATUSES as FINAL_INVOICE_STATUSES,
  isFinal as isFinalInvoiceStatus,
  isInvoiceStatus,
  // Whether an actor may move an invoice between two statuses (the console offers void and mark paid by it).
  canMove as canMoveInvoice,
  type InvoiceStatus,
  type InvoiceSubstatus,
} from './domain/invoice-status';
// The rate lock: which rates value an invoice's amounts to send at its scope's now (Clock.nowFor).
export { heldRatesSnapshot, rateLock } from './domain/invoice-timing';
// Asked by the invoice read, answered by the module that owns payments (the arrow points payments -> invoices).
export { ListInvoicePaymentsQuery, type InvoicePayment } from './ports/list-invoice-payments.query';
// Its events (published on the EventBus after commit; webhooks deliver them from the outbox).
export { InvoiceEvent, INVOICE_EVENT_TYPES, type InvoiceEventType } from './events/invoice.events';
