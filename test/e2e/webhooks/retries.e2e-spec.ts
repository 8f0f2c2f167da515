import { Webhook } from 'standardwebhooks';
import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { attemptsOf, eventually, sleep, WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Retries, timeouts and disabling, on a service of its own with a fast schedule: three attempts
 * 300 ms apart, a 600 ms timeout, endpoints disabled after two deliveries in a row failed.
 */
describe('webhook retries', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  let api: Api;

  beforeAll(async () => {
    service = await startIsolatedService({
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '600',
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
    });
  });

  afterAll(async () => {
    await service.stop();
  });

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    api = (await service.createOrg()).test;
  });

  afterEach(async () => {
    await receiver.stop();
  });

  async function register(url: string, eventTypes: string[] = ['*']) {
    return expectSuccess(await api.post('/webhooks', { url, event_types: eventTypes }), 201);
  }

  async function causeEvent() {
    const other = await register('https://unrelated.example.com/hook', ['invoice.voided']);
    return expectSuccess(await api.post('/events', { type: 'webhook_endpoint.created', limit: 100 })).items.find((e: any) => e.data.object.id === other.id);
  }

  it('retries after a 500 and succeeds; the receiver sees the same id and a valid signature each time', async () => {
    const endpoint = await register(receiver.url());
    receiver.respondWith({ status: 500 });
    const event = await causeEvent();
    const received = await receiver.waitFor((r) => r.length >= 2);
    expect(received.map((r) => r.answeredStatus)).toEqual([500, 200]);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    for (const r of received) expect(new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>)).toEqual(event);
    const gap = received[1].at - received[0].at;
    expect(gap).toBeGreaterThanOrEqual(250);

    await sleep(800);
    expect(receiver.received).toHaveLength(2);
    const attempts = await attemptsOf(api, endpoint.id, 2);
    expect(attempts.map((a: any) => [a.attempt_number, a.succeeded, a.response_status])).toEqual([
      [2, true, 200],
      [1, false, 500],
    ]);
    expect(attempts[1]).toMatchObject({ error: 'endpoint answered HTTP 500', response_body: 'failure 500' });
    expect(attempts[1].next_attempt_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(attempts[0].delivery_id).toBe(attempts[1].delivery_id);
    expect(expectSuccess(await api.get(`/webhooks/${endpoint.id}`))).toMatchObject({ enabled: true, consecutive_failures: 0 });
  });

  it('gives up on an answer slower than the timeout, retries and succeeds', async () => {
    const endpoint = await register(receiver.url());
    receiver.respondWith({ status: 200, delayMs: 2000 });
    const event = await causeEvent();
    await receiver.waitFor((r) => r.length >= 2);
    const attempts = await attemptsOf(api, endpoint.id, 2, { event_id: event.id });
    expect(attempts.map((a: any) => [a.attempt_number, a.succeeded])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(attempts[1]).toMatchObject({ response_status: null, error: 'timed out after 600 ms' });
    expect(attempts[1].duration_ms).toBeGreaterThanOrEqual(550);
    expect(attempts[1].duration_ms).toBeLessThan(1500);
  });

  it('changing an endpoint while its deliveries are being recorded never fails (no lock cycles)', async () => {
    const endpoint = await register(receiver.url('/busy'));
    receiver.setDefault({ status: 500 });
    await Promise.all(Array.from({ length: 8 }, () => register('https://unrelated.example.com/hook', ['invoice.voided'])));
    const statuses: number[] = [];
    for (let round = 0; round < 30; round++) {
      const changes = await Promise.all([
        api.put(`/webhooks/${endpoint.id}`, { enabled: round % 2 === 1 }),
        api.put(`/webhooks/${endpoint.id}`, { description: `round ${round}` }),
        // Created and deleted (an organization has at most 16 endpoints): two more events fanned out to /busy.
        register('https://unrelated.example.com/hook', ['invoice.voided']).then((e) => api.delete(`/webhooks/${e.id}`)),
      ]);
      statuses.push(...changes.map((c) => c.status));
      await sleep(100);
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(receiver.received.length).toBeGreaterThan(3);
  });

  it('stops after the last attempt, and disables the endpoint after repeated failed deliveries', async () => {
    const watcher = await WebhookReceiver.start();
    try {
      const observer = await register(watcher.url('/observer'), ['webhook_endpoint.disabled']);
      receiver.setDefault({ status: 503 });
      const failing = await register(receiver.url('/failing'));

      const first = await causeEvent();
      await receiver.waitFor((r) => r.length >= 3);
      await sleep(800);
      expect(receiver.received).toHaveLength(3);
      await eventually(async () => expect(expectSuccess(await api.get(`/webhooks/${failing.id}`))).toMatchObject({ enabled: true, consecutive_failures: 1 }));

      const second = await causeEvent();
      const [disabled] = await watcher.waitFor((r) => r.length >= 1);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([first.id, first.id, first.id, second.id, second.id, second.id]);
      expect(new Webhook(observer.secret).verify(disabled.body, disabled.headers as Record<string, string>)).toMatchObject({
        type: 'webhook_endpoint.disabled',
        data: {
          object: { id: failing.id, enabled: false, consecutive_failures: 2, disabled_reason: '2 deliveries in a row failed every attempt' },
          previous_attributes: { enabled: true, disabled_reason: null, consecutive_failures: 1 },
        },
      });
      await eventually(async () => expect(expectSuccess(await api.get(`/webhooks/${failing.id}`))).toMatchObject({ enabled: false, consecutive_failures: 2 }));
      expect(expectSuccess(await api.post('/events', { type: 'webhook_endpoint.disabled' })).total).toBe(1);
      const attempts = await attemptsOf(api, failing.id, 6);
      expect(attempts).toHaveLength(6);
      expect(attempts.filter((a: any) => a.next_attempt_at === null)).toHaveLength(2);

      // Disabled: new events are not sent to it; re-enabled: they are again.
      await causeEvent();
      await sleep(800);
      expect(receiver.received).toHaveLength(6);
      receiver.setDefault({ status: 200 });
      expect(expectSuccess(await api.put(`/webhooks/${failing.id}`, { enabled: true }))).toMatchObject({
        enabled: true,
        consecutive_failures: 0,
        disabled_reason: null,
      });
      const fourth = await causeEvent();
      await receiver.waitFor((r) => r.some((d) => d.headers['webhook-id'] === fourth.id && d.answeredStatus === 200));
    } finally {
      await watcher.stop();
    }
  });
});
