import Decimal from 'decimal.js';
import { BUNDLED_SNAPSHOT } from '../../../src/modules/rates/domain/default-snapshot';
import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';

export const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_UP });
export const r30 = (d: Decimal.Value) => new D(d).toFixed(30, Decimal.ROUND_HALF_UP);
export const rate = (c: keyof typeof BUNDLED_SNAPSHOT.rates) => new D(BUNDLED_SNAPSHOT.rates[c]);
/** amount * from / to, rounded half-up at 30 digits, as the service converts. */
export const convert = (amount: Decimal.Value, from: keyof typeof BUNDLED_SNAPSHOT.rates, to: keyof typeof BUNDLED_SNAPSHOT.rates) =>
  new D(amount).mul(rate(from)).div(rate(to)).toDecimalPlaces(30, Decimal.ROUND_HALF_UP);

export const intent = (price: string, currency = 'USD') => ({ type: 'PAYMENT_INTENT', currency, price });

export interface InvoiceBody {
  items?: unknown[];
  customer_email?: string;
  currency?: string;
  metadata?: Record<string, string>;
  redirect_url?: string;
}

/** Creates an invoice through the API and returns its id. */
export async function createInvoice(api: Api, body: InvoiceBody = {}): Promise<string> {
  const res = await api.post('/invoices/create', {
    items: [intent('10')],
    customer_email: 'jane@example.com',
    ...body,
  });
  return expectSuccess<{ id: string }>(res, 201).id;
}

export async function readInvoice(api: Api, id: string, body: unknown = {}): Promise<any> {
  return expectSuccess(await api.post(`/invoices/${id}`, body));
}
