// The quotes module's public surface: other modules and the composition root import only this file.
export { QuotesModule } from './quotes.module';
export { CalculatePricesQuery } from './queries/calculate-prices/calculate-prices.query';
export { QuotePriceQuery, type QuoteVariants } from './queries/quote-price/quote-price.query';
export type { CalculationStep, CalculationType, ItemCalculation, ItemInput, PriceCalculation } from './domain/calculation';
// Asked by quotes for `invoice_id`, answered by the invoices module (the arrow points invoices -> quotes).
export { GetInvoiceItemsQuery, type InvoiceItemsForQuote } from './ports/get-invoice-items.query';
