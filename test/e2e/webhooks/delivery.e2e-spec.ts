import { Webhook } from 'standardwebhooks';
import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { attemptsOf, WebhookReceiver } from '../../support/webhook-receiver';
import { runWorkerPass } from '../../support/workers';

/**
 * Deliveries from the shared test service (dispatch interval 1 s, default retry schedule) to a
 * real receiver on loopback. Creating an endpoint is the state change: it records
 * webhook_endpoint.created, which other endpoints subscribed to it receive. That nothing more is sent
 * is checked after a dispatcher pass run on demand (every event fanned out and every due delivery of the
 * asking organization sent when it returns) instead of after a wait.
 */
async function registerEndpoint(api: Api, url: string, eventTypes: string[] | string = ['*']) {
  return expectSuccess(await api.post('/webhooks', { url, event_types: eventTypes }), 201);
}

/** A state change that records webhook_endpoint.created; returns that event. */
async function causeEvent(api: Api) {
  const other = await registerEndpoint(api, 'https://unrelated.example.com/hook', ['invoice.voided']);
  const events = expectSuccess(await api.post('/events', { type: 'webhook_endpoint.created', limit: 100 })).items;
  return events.find((e: any) => e.data.object.id === other.id);
}

describe('webhook delivery', () => {
  let receiver: WebhookReceiver;
  let org: TestOrg;

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    org = await createOrg();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  it('delivers the event signed with the endpoint secret (Standard Webhooks), body equal to the stored event', async () => {
    const endpoint = await registerEndpoint(org.test, receiver.url());
    const event = await causeEvent(org.test);
    const [delivery] = await receiver.waitFor((r) => r.length >= 1);

    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toBe(event.id);
    expect(delivery.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const verified = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>);
    expect(verified).toEqual(event);
    expect(verified).toEqual(expectSuccess(await org.test.post(`/events/${event.id}`)));
    expect(delivery.json).toMatchObject({ type: 'webhook_endpoint.created', organization_id: org.id, mode: 'test' });
    expect(delivery.body).not.toContain('whsec_');

    // A wrong secret, a changed body or a changed id do not verify.
    const wrong = new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64'));
    expect(() => wrong.verify(delivery.body, delivery.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(endpoint.secret).verify(delivery.body.replace('test', 'live'), delivery.headers as Record<string, string>)).toThrow();
    expect(() =>
      new Webhook(endpoint.secret).verify(delivery.body, { ...(delivery.headers as Record<string, string>), 'webhook-id': 'event_other' }),
    ).toThrow();

    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(1);

    await attemptsOf(org.test, endpoint.id, 1);
    const attempts = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/attempts`, {}));
    expect(attempts).toMatchObject({ total: 1, has_more: false });
    expect(attempts.items[0]).toMatchObject({
      event_id: event.id,
      event_type: 'webhook_endpoint.created',
      attempt_number: 1,
      url: receiver.url(),
      succeeded: true,
      response_status: 200,
      response_body: 'ok',
      error: null,
      next_attempt_at: null,
    });
    expect(attempts.items[0].id).toMatch(/^attempt_/);

    const metrics = await anonymous().get('/metrics');
    expect(metrics.status).toBe(200);
    const counted = /webhook_attempts_total\{outcome="succeeded"\} (\d+)/.exec(metrics.text);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics.text).toContain('webhook_attempt_duration_seconds_bucket');
    expect(attempts.items[0].delivery_id).toMatch(/^delivery_/);
  });

  it('records a delivery the receiver answered with a NUL character in its body, as succeeded, once', async () => {
    const endpoint = await registerEndpoint(org.test, receiver.url(), ['webhook_endpoint.created']);
    receiver.respondWith({ status: 200, body: 'ok\u0000accepted' });
    await causeEvent(org.test);
    const [attempt] = await attemptsOf(org.test, endpoint.id, 1);
    expect(attempt).toMatchObject({ succeeded: true, response_status: 200, response_body: 'ok\uFFFDaccepted' });
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(1);
  });

  it('sends only the subscribed types', async () => {
    await registerEndpoint(org.test, receiver.url('/deleted-only'), ['webhook_endpoint.deleted']);
    const event = await causeEvent(org.test);
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received).toHaveLength(0);
    expectSuccess(await org.test.delete(`/webhooks/${event.data.object.id}`));
    const [delivery] = await receiver.waitFor((r) => r.length >= 1);
    expect(delivery.json.type).toBe('webhook_endpoint.deleted');
    expect(delivery.json.data.object.id).toBe(event.data.object.id);
  });

  it('never delivers events of another organization or of the other mode', async () => {
    await registerEndpoint(org.test, receiver.url('/mine'));
    const other = await createOrg();
    await causeEvent(other.test);
    await causeEvent(org.live);
    const mine = await causeEvent(org.test);
    await receiver.waitFor((r) => r.some((d) => d.json.id === mine.id));
    // A pass sends the asking organization's due deliveries (both modes): the other organization's, then ours.
    await runWorkerPass(other.test, 'webhook-dispatcher');
    await runWorkerPass(org.test, 'webhook-dispatcher');
    expect(receiver.received.map((d) => d.json.id)).toEqual([mine.id]);
    expect(receiver.received.every((d) => d.json.organization_id === org.id && d.json.mode === 'test')).toBe(true);
  });

  it('redelivers an event on request with the same webhook-id, and lists both attempts', async () => {
    const endpoint = await registerEndpoint(org.test, receiver.url());
    const event = await causeEvent(org.test);
    await receiver.waitFor((r) => r.length >= 1);

    const queued = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: event.id }), 202);
    expect(queued).toMatchObject({ endpoint_id: endpoint.id, event_id: event.id, status: 'pending' });
    expect(queued.delivery_id).toMatch(/^delivery_/);
    const received = await receiver.waitFor((r) => r.length >= 2);
    expect(received.map((d) => d.headers['webhook-id'])).toEqual([event.id, event.id]);
    expect(new Webhook(endpoint.secret).verify(received[1].body, received[1].headers as Record<string, string>)).toEqual(event);

    const attempts = await attemptsOf(org.test, endpoint.id, 2, { event_id: event.id });
    expect(attempts).toHaveLength(2);
    expect(attempts[0].delivery_id).toBe(queued.delivery_id);
    expect(attempts[1].delivery_id).not.toBe(queued.delivery_id);
    expect(expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/attempts`, { event_id: 'event_none' })).total).toBe(0);
  });

  it('redelivery checks its input, the event scope and the endpoint state', async () => {
    const endpoint = await registerEndpoint(org.test, receiver.url());
    expectError(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, {}), 400, { field: 'event_id' });
    expectError(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: 5 }), 400, { field: 'event_id' });
    expectError(await org.test.post(`/webhooks/${endpoint.id}/attempts`, { limit: 500 }), 400, { field: 'limit' });

    const foreign = await causeEvent((await createOrg()).test);
    expectError(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: foreign.id }), 404, { code: 'event_not_found' });
    const liveEvent = await causeEvent(org.live);
    expectError(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: liveEvent.id }), 404, { code: 'event_not_found' });

    const own = await causeEvent(org.test);
    // A type the endpoint does not receive is not sent to it, even on request.
    const narrow = await registerEndpoint(org.test, receiver.url(), ['invoice.completed']);
    expectError(await org.test.post(`/webhooks/${narrow.id}/redeliver`, { event_id: own.id }), 400, {
      code: 'event_type_not_enabled',
      field: 'event_id',
    });
    expectSuccess(await org.test.put(`/webhooks/${narrow.id}`, { event_types: ['invoice.completed', own.type] }));
    expectSuccess(await org.test.post(`/webhooks/${narrow.id}/redeliver`, { event_id: own.id }), 202);
    expectSuccess(await org.test.put(`/webhooks/${endpoint.id}`, { enabled: false }));
    expectError(await org.test.post(`/webhooks/${endpoint.id}/redeliver`, { event_id: own.id }), 400, { code: 'webhook_endpoint_disabled' });
  });

  it('while a rotation grace period lasts, deliveries verify with the old and the new secret', async () => {
    const endpoint = await registerEndpoint(org.test, receiver.url());
    const rotated = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/rotate_secret`, { grace_period_seconds: 3600 }));
    const event = await causeEvent(org.test);
    const [delivery] = await receiver.waitFor((r) => r.length >= 1);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(event);
    expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(event);

    const again = expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/rotate_secret`, {}));
    await causeEvent(org.test);
    const [, second] = await receiver.waitFor((r) => r.length >= 2);
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(again.secret).verify(second.body, second.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(second.body, second.headers as Record<string, string>)).toThrow();
  });

  it('a paused or deleted endpoint gets nothing', async () => {
    const paused = await registerEndpoint(org.test, receiver.url('/paused'));
    const deleted = await registerEndpoint(org.test, receiver.url('/deleted'));
    expectSuccess(await org.test.put(`/webhooks/${paused.id}`, { enabled: false }));
    expectSuccess(await org.test.delete(`/webhooks/${deleted.id}`));
    const event = await causeEvent(org.test);
    await runWorkerPass(org.test, 'webhook-dispatcher');
    // Events committed before the pause may have been delivered at once (committed events bring the
    // dispatch forward); nothing recorded after the pause and the delete reaches either endpoint.
    expect(receiver.received.filter((r) => r.json?.id === event.id || r.json?.type === 'webhook_endpoint.deleted')).toEqual([]);
  });
});
