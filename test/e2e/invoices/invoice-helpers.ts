import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';

export { convert, D, r30, rate } from '../../support/money';

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
