// The invoices module's public surface: other modules and the composition root import only this file.
export { InvoicesModule } from './invoices.module';
export {
  CreateInvoiceCommand,
  type CreateInvoiceInput,
  type CreateItemInput,
  type SubscriptionPeriodInput,
} from './commands/create-invoice/create-invoice.command';
export { ChangeInvoiceStatusCommand } from './commands/change-invoice-status/change-invoice-status.command';
export { ChangeInvoiceCurrencyCommand } from './commands/change-invoice-currency/change-invoice-currency.command';
export { invoiceChangeCommand, type InvoiceUpdated } from './commands/invoice-change';
export { GetInvoiceQuery } from './queries/get-invoice/get-invoice.query';
export { GetPayableInvoiceQuery, type PayableInvoice } from './queries/get-payable-invoice/get-payable-invoice.query';
export { GetInvoiceStatusesQuery, type InvoiceStatusEntry } from './queries/get-invoice-statuses/get-invoice-statuses.query';
export { GetShortStateQuery, type InvoiceShortState } from './queries/get-short-state/get-short-state.query';
export { ListInvoicesQuery, type InvoicePage } from './queries/list-invoices/list-invoices.query';
export { ClockMoveFirst, PayableInvoices, type InvoicePaymentsTotals, type InvoiceStateChange } from './payable-invoices.service';
export { InvoiceClocks } from './invoice-clocks.service';
export type { InvoiceStatus, InvoiceSubstatus } from './domain/invoice-status';
// Asked by the invoice read, answered by the module that owns payments (the arrow points payments -> invoices).
export { ListInvoicePaymentsQuery } from './ports/list-invoice-payments.query';
