// Test mode only: pays an invoice the way a payer would, through the test helpers, so that the
// service sends invoice.completed. With a live key the service answers 403.
//
//   API_KEY=sk_test_... node merchant/pay-test-invoice.mjs invoice_0193...
import { api } from './api.mjs';

const invoiceId = process.argv[2];
if (!invoiceId) {
  console.error('usage: node merchant/pay-test-invoice.mjs <invoice_id> [provider_id]');
  process.exit(2);
}

// The ways to pay this invoice, each with the amount that covers it in its own currency.
const { providers } = await api('GET', `/providers/${invoiceId}`);
const provider = process.argv[3] ? providers.find((p) => p.id === process.argv[3]) : providers[0];
if (!provider) throw new Error(`no provider ${process.argv[3] ?? ''} can pay ${invoiceId}`);

// Amounts are decimal strings with 30 fractional digits; send them without the trailing zeros.
const amount = provider.price.includes('.') ? provider.price.replace(/0+$/, '').replace(/\.$/, '') : provider.price;

const payment = await api('POST', '/test_helpers/payments', {
  invoice_id: invoiceId,
  provider_id: provider.id,
  price: amount,
  status: 'COMPLETED',
});
console.log(`payment ${payment.id} of ${amount} ${provider.currency} recorded: invoice ${invoiceId} is ${payment.invoice.status}`);
