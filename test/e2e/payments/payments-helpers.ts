import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';

export { D, r30 } from '../../support/money';

/** Creates an invoice of one payment intent and returns its id. */
export async function createInvoice(api: Api, price = '100', currency = 'USD', extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency, price }], customer_email: 'payer@example.com', ...extra });
  return expectSuccess(res, 201).id;
}

export interface Simulated {
  id: string;
  status: string;
  created: boolean;
  invoice: { id: string; status: string; substatus: string | null; previous_status: string };
  confirmations?: number | null;
  required_confirmations?: number | null;
}

export async function pay(api: Api, body: Record<string, unknown>): Promise<Simulated> {
  return expectSuccess(await api.post('/test_helpers/payments', body), 201);
}

export async function setStatus(api: Api, paymentId: string, status: string): Promise<Simulated> {
  return expectSuccess(await api.post(`/test_helpers/payments/${paymentId}/status`, { status }), 200);
}

export async function shortState(api: Api, invoiceId: string): Promise<{ status: string; substatus: string | null }> {
  const res = await api.get(`/invoices/${invoiceId}/short_state`);
  if (res.status !== 200) throw new Error(`short_state answered ${res.status}: ${res.text}`);
  expect(res.body.status).toBe(res.body.data.status);
  return res.body.data;
}
