import { Webhook } from 'standardwebhooks';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { attemptsOf, WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';

/**
 * The whole story: a merchant registers a URL, simulates a payment in test mode and receives
 * signed payment.created, payment.updated and invoice.completed deliveries that verify with the
 * README's example (standardwebhooks on the raw body).
 */
describe('events of payments', () => {
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  /** The README's receiver code: verify the raw body against the headers with the endpoint secret. */
  function verify(secret: string, raw: string, headers: Record<string, unknown>): any {
    const webhook = new Webhook(secret);
    return webhook.verify(raw, headers as Record<string, string>);
  }

  it('a simulated payment sends signed payment.created, payment.updated and invoice.completed', async () => {
    const org = await createOrg();
    const endpoint = expectSuccess(
      await org.test.post('/webhooks', {
        url: receiver.url('/shop'),
        event_types: ['payment.created', 'payment.updated', 'invoice.completed'],
      }),
      201,
    );
    const invoice = expectSuccess(
      await org.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }],
        customer_email: 'payer@example.com',
      }),
      201,
    );
    const payment = expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice.id, provider_id: 'prov_tron_usdt', price: '20' }), 201);
    expectSuccess(await org.test.post(`/test_helpers/payments/${payment.id}/status`, { status: 'COMPLETED' }));

    const received = await receiver.waitFor((r) => r.length >= 3);
    // One dispatcher pass sends whatever else is due: nothing more arrives.
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(3);
    const events = received.map((r) => verify(endpoint.secret, r.body, r.headers));
    // Deliveries run concurrently, so they may arrive in any order (docs/webhooks.md).
    expect(events.map((e) => e.type).sort()).toEqual(['invoice.completed', 'payment.created', 'payment.updated']);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));

    const [created, updated, completed] = ['payment.created', 'payment.updated', 'invoice.completed'].map((type) => events.find((e) => e.type === type)!);
    const paymentNow = expectSuccess(await org.test.post(`/payments/${payment.id}`, {}));
    expect(created.data.object).toMatchObject({ id: payment.id, invoice_id: invoice.id, status: 'PENDING', provider_id: 'prov_tron_usdt' });
    expect(created.data.object.price).toMatch(/^20\.0{30}$/);
    expect(updated.data.object).toEqual(paymentNow);
    expect(updated.data.previous_attributes).toMatchObject({ status: 'PENDING' });
    const invoiceNow = expectSuccess(await org.test.post(`/invoices/${invoice.id}`, {}));
    expect(completed.data.object).toEqual(invoiceNow);
    expect(completed.data.object.status).toBe('COMPLETED');
    for (const e of events) expect(e).toMatchObject({ organization_id: org.id, mode: 'test' });

    // The same events in POST /events, with the invoice's own updates and their previous status.
    const listed = expectSuccess(
      await org.test.post('/events', { type: ['invoice.created', 'invoice.updated', 'invoice.completed', 'payment.created', 'payment.updated'] }),
    ).items;
    expect(listed.map((e: any) => e.type).reverse()).toEqual([
      'invoice.created',
      'payment.created',
      'invoice.updated',
      'payment.updated',
      'invoice.updated',
      'invoice.completed',
    ]);
    const invoiceUpdates = listed.filter((e: any) => e.type === 'invoice.updated').reverse();
    expect(invoiceUpdates.map((e: any) => [e.data.previous_attributes.status, e.data.object.status])).toEqual([
      ['PENDING', 'WAITING_FOR_CONFIRMATIONS'],
      ['WAITING_FOR_CONFIRMATIONS', 'COMPLETED'],
    ]);
    expect((await attemptsOf(org.test, endpoint.id, 3)).every((a) => a.succeeded)).toBe(true);
  });
});

describe('payment events in detail', () => {
  it('a payment reported again with the same idempotency key records no second event; a failed one records payment.updated', async () => {
    const org = await createOrg();
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    const body = { invoice_id: invoice.id, provider_id: 'prov_card_usd', price: '10', idempotency_key: 'psp-1' };
    const first = expectSuccess(await org.test.post('/test_helpers/payments', body), 201);
    expectSuccess(await org.test.post('/test_helpers/payments', body), 201);
    expectSuccess(await org.test.post(`/test_helpers/payments/${first.id}/status`, { status: 'FAILED' }));
    const events = expectSuccess(await org.test.post('/events', { type: ['payment.created', 'payment.updated', 'invoice.updated'] })).items.reverse();
    expect(events.map((e: any) => e.type)).toEqual(['payment.created', 'invoice.updated', 'payment.updated', 'invoice.updated']);
    expect(events[2].data.object).toMatchObject({ id: first.id, status: 'FAILED', idempotency_key: 'psp-1' });
    expect(events[2].data.previous_attributes).toMatchObject({ status: 'PENDING' });
    expect(events.filter((e: any) => e.type === 'invoice.updated').map((e: any) => [e.data.previous_attributes.status, e.data.object.status])).toEqual([
      ['PENDING', 'PROCESSING'],
      ['PROCESSING', 'PENDING'],
    ]);
    expect(expectSuccess(await org.live.post('/events', {})).total).toBe(0);
  });
});
