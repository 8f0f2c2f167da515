import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { RunningServer, startServer } from '../../support/server';
import { databaseOf } from '../timing/timing-helpers';
import { nextInvoice, readSubscription, recurringProduct, waitFor } from './subscription-helpers';

// The instance a merchant talks to never runs the scheduler's pass (SUBSCRIPTIONS_TICK_SECONDS=0): what
// it learns of a period invoice's outcome it learns from the invoices module's events on the bus.
const QUIET = { CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '0', INVOICE_SWEEP_SECONDS: '0' };
const BILLING = { ...QUIET, SUBSCRIPTIONS_TICK_SECONDS: '1' };

describe('period invoice outcomes heard as events (InvoiceEvent on the bus)', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService(QUIET);
  });
  afterAll(async () => {
    await service?.stop();
  });

  /** Issues the first (ADVANCE) period invoice on a second instance that ticks, then stops it. */
  async function subscribedWithInvoice(api: Api): Promise<{ subscriptionId: string; invoiceId: string }> {
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL' });
    const subscriptionId = expectSuccess(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'events@example.com' }),
      201,
    ).id;
    const billing: RunningServer = await startServer({ databaseUrl: databaseOf(service), env: BILLING });
    try {
      const invoice = await nextInvoice(api, subscriptionId, null);
      return { subscriptionId, invoiceId: invoice.id };
    } finally {
      await billing.stop();
    }
  }

  it('turns PAST_DUE when its period invoice is voided, with no scheduler pass in this instance', async () => {
    const org = await service.createOrg('Outcome events');
    const api = org.test;
    const { subscriptionId, invoiceId } = await subscribedWithInvoice(api);
    expect((await readSubscription(api, subscriptionId)).status).toBe('ACTIVE');

    expectSuccess(await api.put(`/invoices/${invoiceId}`, { status: 'VOIDED' }));
    const pastDue = await waitFor(
      () => readSubscription(api, subscriptionId),
      (s) => s.status === 'PAST_DUE',
      10_000,
    );
    expect(pastDue.status).toBe('PAST_DUE');
  });

  it('ignores invoices outside subscriptions and stays ACTIVE while its period invoice is open', async () => {
    const org = await service.createOrg('Outcome events, unrelated');
    const api = org.test;
    const { subscriptionId } = await subscribedWithInvoice(api);
    const other = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }), 201).id;
    expectSuccess(await api.put(`/invoices/${other}`, { status: 'VOIDED' }));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await readSubscription(api, subscriptionId)).status).toBe('ACTIVE');
  });
});
