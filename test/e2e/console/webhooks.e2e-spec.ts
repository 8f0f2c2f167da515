import { Api } from '../../support/api';
import { addMember, consoleOrg } from '../../support/console-client';
import { expectSuccess } from '../../support/envelope';
import { attemptsOf, WebhookReceiver } from '../../support/webhook-receiver';

async function endpointFor(api: Api, url: string): Promise<string> {
  return expectSuccess<{ id: string }>(await api.post('/webhooks', { url, event_types: ['invoice.created'] }), 201).id;
}

async function invoiceCreated(api: Api): Promise<string> {
  const id = expectSuccess<{ id: string }>(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '3' }] }), 201).id;
  const events = expectSuccess<{ items: Array<{ id: string; data: { object: { id: string } } }> }>(
    await api.post('/events', { type: 'invoice.created', limit: 100 }),
  ).items;
  return events.find((e) => e.data.object.id === id)!.id;
}

describe('console: webhook deliveries and resend', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('lists endpoints with attempts and responses; Resend queues a new delivery that the receiver gets', async () => {
    const org = await consoleOrg();
    const api = new Api(org.testKey);
    receiver.respondWith({ status: 500 });
    const endpoint = await endpointFor(api, receiver.url('/console-hook'));
    const event = await invoiceCreated(api);
    await receiver.waitFor((r) => r.length >= 1);
    const [failed] = await attemptsOf(api, endpoint, 1);
    expect(failed).toMatchObject({ event_id: event, succeeded: false, response_status: 500 });

    const page = await org.owner.get('/console/test/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain(receiver.url('/console-hook'));
    expect(page.text).toContain(`data-attempt="${failed.id}"`);
    expect(page.text).toContain('failure 500');
    expect(page.text).toContain(`action="/console/test/webhooks/${endpoint}/resend"`);

    const resent = await org.owner.submit('/console/test/webhooks', `/console/test/webhooks/${endpoint}/resend`, { event_id: event });
    expect(resent.status).toBe(201);
    const delivery = /Queued a new delivery: (delivery_[0-9a-f-]+)/.exec(resent.text)![1];
    const received = await receiver.waitFor((r) => r.some((d) => d.answeredStatus === 200));
    const second = received.find((d) => d.answeredStatus === 200)!;
    expect(second.headers['webhook-id']).toBe(event);
    expect((second.json as { id: string }).id).toBe(event);
    const attempts = await attemptsOf(api, endpoint, 2, { event_id: event });
    expect(attempts.find((a: { delivery_id: string }) => a.delivery_id === delivery)).toMatchObject({ succeeded: true, response_status: 200 });
    const after = await org.owner.get('/console/test/webhooks');
    expect(after.text).toContain(`data-delivery="${delivery}"`);
    // The audit log names the member and the new delivery.
    const audit = expectSuccess<{ items: Array<Record<string, string>> }>(await api.get('/audit_log?limit=20')).items;
    expect(audit.find((e) => e.action === 'webhook.resend')).toMatchObject({ actor_type: 'member', target: delivery, mode: 'test' });
  });

  it('refuses an unknown event, and answers 404 for another organization’s endpoint and the other mode’s', async () => {
    const [a, b] = await Promise.all([consoleOrg(), consoleOrg()]);
    const aApi = new Api(a.testKey);
    const endpoint = await endpointFor(aApi, receiver.url());
    const event = await invoiceCreated(aApi);
    expect((await a.owner.submit('/console/test/webhooks', `/console/test/webhooks/${endpoint}/resend`, { event_id: 'event_nope' })).status).toBe(404);
    expect((await b.owner.submit('/console/test/webhooks', `/console/test/webhooks/${endpoint}/resend`, { event_id: event })).status).toBe(404);
    expect((await a.owner.submit('/console/live/webhooks', `/console/live/webhooks/${endpoint}/resend`, { event_id: event })).status).toBe(404);
    expect((await b.owner.get('/console/test/webhooks')).text).not.toContain(endpoint);
    expect((await a.owner.get('/console/live/webhooks')).text).not.toContain(endpoint);
  });

  it('role table: developer resends in test mode only; analyst and support see deliveries without Resend and are refused', async () => {
    const org = await consoleOrg();
    const api = new Api(org.testKey);
    const liveApi = new Api(org.liveKey);
    const endpoint = await endpointFor(api, receiver.url('/t'));
    const liveEndpoint = await endpointFor(liveApi, receiver.url('/l'));
    const event = await invoiceCreated(api);
    const liveEvent = await invoiceCreated(liveApi);
    await receiver.waitFor((r) => r.length >= 2);

    const dev = (await addMember(org.owner, 'developer')).client;
    expect((await dev.submit('/console/test/webhooks', `/console/test/webhooks/${endpoint}/resend`, { event_id: event })).status).toBe(201);
    const livePage = await dev.get('/console/live/webhooks');
    expect(livePage.text).toContain(liveEndpoint);
    expect(livePage.text).not.toContain('/resend"');
    expect((await dev.submit('/console/live/webhooks', `/console/live/webhooks/${liveEndpoint}/resend`, { event_id: liveEvent })).status).toBe(403);

    for (const role of ['analyst', 'support']) {
      const m = (await addMember(org.owner, role)).client;
      const page = await m.get('/console/test/webhooks');
      expect(page.status).toBe(200);
      expect(page.text).toContain(endpoint);
      expect(page.text).not.toContain('/resend"');
      expect([role, (await m.submit('/console/test/webhooks', `/console/test/webhooks/${endpoint}/resend`, { event_id: event })).status]).toEqual([role, 403]);
    }
  });
});
