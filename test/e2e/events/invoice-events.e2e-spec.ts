import { Webhook } from 'standardwebhooks';
import { anonymous } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { WebhookReceiver } from '../../support/webhook-receiver';

/** Invoice changes record their events in the same transaction and are delivered. */

/** The fields an event's previous_attributes name, but `updated_at` (it changes with the second the change lands in). */
const changedKeys = (previous: unknown) =>
  Object.keys(previous as object)
    .filter((key) => key !== 'updated_at')
    .sort();

describe('invoice events', () => {
  let org: TestOrg;
  let receiver: WebhookReceiver;
  let secret: string;

  beforeEach(async () => {
    org = await createOrg();
    receiver = await WebhookReceiver.start();
    secret = expectSuccess(await org.test.post('/webhooks', { url: receiver.url(), event_types: ['*'] }), 201).secret;
  });

  afterEach(async () => {
    await receiver.stop();
  });

  async function createInvoice(price = '5') {
    return expectSuccess(
      await org.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }],
        customer_email: 'payer@example.com',
        metadata: { order: 'A-1' },
      }),
      201,
    );
  }

  async function events(type?: string) {
    return expectSuccess(await org.test.post('/events', type ? { type, limit: 100 } : { limit: 100 })).items;
  }

  async function delivered(eventId: string) {
    const hit = (await receiver.waitFor((r) => r.some((d) => d.headers['webhook-id'] === eventId))).find((d) => d.headers['webhook-id'] === eventId)!;
    return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
  }

  it('invoice.created carries the invoice as POST /invoices/{id} shows it', async () => {
    const { id } = await createInvoice();
    const [event] = await events('invoice.created');
    expect(event).toMatchObject({ type: 'invoice.created', organization_id: org.id, mode: 'test' });
    expect(event.data.object).toEqual(expectSuccess(await org.test.post(`/invoices/${id}`, {})));
    expect(event.data.object).toMatchObject({ status: 'PENDING', price_usd: expect.stringMatching(/^5\.0{30}$/) });
    expect(await delivered(event.id)).toEqual(event);
  });

  it('voiding records invoice.updated (previous and new status) and invoice.voided', async () => {
    const { id } = await createInvoice();
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'VOIDED' }));
    const [updated] = await events('invoice.updated');
    const [voided] = await events('invoice.voided');
    const now = expectSuccess(await org.test.post(`/invoices/${id}`, {}));
    expect(updated.data.object).toEqual(now);
    expect(updated.data.object.status).toBe('VOIDED');
    expect(updated.data.previous_attributes).toMatchObject({ status: 'PENDING' });
    // Only what changed: not the unchanged fields, objects (metadata) included. (`updated_at`, to the second,
    // is among them when the change comes in a later second than the invoice's creation.)
    expect(changedKeys(updated.data.previous_attributes)).toEqual(['status']);
    expect(voided.data).toEqual(updated.data);
    expect(await delivered(voided.id)).toEqual(voided);
  });

  it('marking paid records invoice.updated and invoice.completed', async () => {
    const { id } = await createInvoice();
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'COMPLETED' }));
    const [completed] = await events('invoice.completed');
    expect(completed.data.object).toMatchObject({ id, status: 'COMPLETED', substatus: 'MARKED_PAID' });
    expect(completed.data.previous_attributes).toMatchObject({ status: 'PENDING', substatus: null });
    expect(await delivered(completed.id)).toEqual(completed);
  });

  it('a currency change records invoice.updated with the earlier currency and price, also when the payer makes it', async () => {
    const { id } = await createInvoice('100');
    expectSuccess(await anonymous().put(`/invoices/${id}`, { currency: 'EUR' }));
    const [updated] = await events('invoice.updated');
    expect(updated.data.object).toMatchObject({ id, currency: 'EUR', status: 'PENDING' });
    expect(updated.data.previous_attributes).toMatchObject({ currency: 'USD', price: expect.stringMatching(/^100\.0{30}$/) });
    expect(updated.data.previous_attributes).not.toHaveProperty('status');
    expect(changedKeys(updated.data.previous_attributes)).toEqual(['currency', 'price']);
  });

  it('a refused change records nothing', async () => {
    const { id } = await createInvoice();
    expectSuccess(await org.test.put(`/invoices/${id}`, { status: 'VOIDED' }));
    expect((await org.test.put(`/invoices/${id}`, { status: 'COMPLETED' })).status).toBe(400);
    expect((await org.test.put(`/invoices/${id}`, { currency: 'EUR' })).status).toBe(400);
    const types = (await events()).map((e: any) => e.type).filter((t: string) => t.startsWith('invoice.'));
    expect(types).toEqual(['invoice.voided', 'invoice.updated', 'invoice.created']);
  });

  it('the other mode sees none of them', async () => {
    await createInvoice();
    expect(expectSuccess(await org.live.post('/events', { type: 'invoice.created' })).total).toBe(0);
  });
});
