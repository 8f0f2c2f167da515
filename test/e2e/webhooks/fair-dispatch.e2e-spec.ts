import type { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { databaseOf } from '../timing/timing-helpers';

/**
 * Fair delivery (decisions §22): the dispatcher takes its batches round-robin across organizations,
 * at most WORKER_ORG_BATCH deliveries of one organization per batch. Two organizations flood it
 * with deliveries to endpoints that never answer in time; a third organization's delivery still
 * goes out in the next batch, long before the flood has been worked through.
 */
describe('webhook deliveries are taken fairly across organizations', () => {
  let service: IsolatedService;
  let stuck: WebhookReceiver;
  let good: WebhookReceiver;

  beforeAll(async () => {
    service = await startIsolatedService({
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      WEBHOOK_DISPATCH_BATCH: '4',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_DISABLE_AFTER_FAILURES: '0',
      WORKER_ORG_BATCH: '1',
    });
    stuck = await WebhookReceiver.start();
    // Answers after the sender gave up: every attempt takes the whole timeout and fails.
    stuck.setDefault({ status: 500, delayMs: 2000 });
    good = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await stuck?.stop();
    await good?.stop();
    await service?.stop();
  });

  async function invoice(api: Api): Promise<void> {
    expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
  }

  it("delivers a third organization's event in the next batch while two organizations' deliveries hang", async () => {
    const flooders = [await service.createOrg('Flood A'), await service.createOrg('Flood B')];
    const quiet = await service.createOrg('Quiet C');
    for (const org of flooders) {
      expectSuccess(await org.test.post('/webhooks', { url: stuck.url(`/${org.id}`), event_types: ['invoice.created'] }), 201);
    }
    expectSuccess(await quiet.test.post('/webhooks', { url: good.url('/quiet'), event_types: ['invoice.created'] }), 201);

    // 10 deliveries each, all due before the quiet organization's one.
    const FLOOD = 10;
    for (let i = 0; i < FLOOD; i++) await Promise.all(flooders.map((org) => invoice(org.test)));
    const before = stuck.received.length;
    await invoice(quiet.test);

    await good.waitFor((r) => r.some((w) => w.json?.type === 'invoice.created'), 10_000);
    const seenBeforeQuiet = stuck.received.length;
    // Oldest-first batches of 4 would send all 20 hanging deliveries (5 passes of a second each) first.
    // Fair batches take at most one of each organization: the batch under way when the event was
    // committed (at most 4), then the next one, which holds the quiet organization's delivery.
    expect(seenBeforeQuiet - before).toBeLessThanOrEqual(4 + 2);
    expect(seenBeforeQuiet).toBeLessThan(2 * FLOOD);

    // The flood is still worked through, one delivery of each organization per batch.
    await stuck.waitFor((r) => r.length >= 2 * FLOOD, 30_000);
    const perOrg = new Map<string, number>();
    for (const w of stuck.received) perOrg.set(w.path, (perOrg.get(w.path) ?? 0) + 1);
    expect([...perOrg.values()]).toEqual([FLOOD, FLOOD]);
  }, 90_000);
});

/**
 * An endpoint that takes long to answer (within the timeout, so it never fails and is never disabled) holds
 * only its own organization's deliveries: a pass starts its sends and does not wait for their answers.
 */
describe('a slow endpoint does not hold back other organizations', () => {
  let service: IsolatedService;
  let slow: WebhookReceiver;
  let good: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '30000' });
    slow = await WebhookReceiver.start();
    // Answers 200, after 12 seconds.
    slow.setDefault({ status: 200, delayMs: 12_000 });
    good = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await service?.stop();
    await slow?.stop();
    await good?.stop();
  });

  it("delivers another organization's event while the slow endpoint's answer is still awaited", async () => {
    const tarpit = await service.createOrg('Slow endpoint');
    const other = await service.createOrg('Other');
    expectSuccess(await tarpit.test.post('/webhooks', { url: slow.url('/slow'), event_types: ['invoice.created'] }), 201);
    expectSuccess(await other.test.post('/webhooks', { url: good.url('/other'), event_types: ['invoice.created'] }), 201);

    expectSuccess(await tarpit.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    await slow.waitFor((r) => r.length === 1, 10_000);
    const held = slow.received[0].at;
    expectSuccess(await other.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    // While the first answer is 12 seconds away; a pass waiting for it would send nothing else meanwhile.
    await good.waitFor((r) => r.some((w) => w.json?.type === 'invoice.created'), 6_000);
    expect(good.received[0].at - held).toBeLessThan(12_000);
  }, 60_000);
});

/** An instance has at most four batches of attempts in flight, however many organizations have due deliveries. */
describe('attempts in flight on an instance', () => {
  let service: IsolatedService;
  let slow: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_DISPATCH_BATCH: '2', WEBHOOK_TIMEOUT_MS: '30000' });
    slow = await WebhookReceiver.start();
    slow.setDefault({ status: 200, delayMs: 4_000 });
  });
  afterAll(async () => {
    await service?.stop();
    await slow?.stop();
  });

  it('sends at most four times WEBHOOK_DISPATCH_BATCH at once, the rest as answers come', async () => {
    const orgs = await Promise.all(Array.from({ length: 12 }, (_, i) => service.createOrg(`Slow ${i}`)));
    for (const org of orgs) expectSuccess(await org.test.post('/webhooks', { url: slow.url(`/${org.id}`), event_types: ['invoice.created'] }), 201);
    for (const org of orgs) {
      expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    }
    // Each answer takes 4 seconds: within the first 3 seconds of the first arrival, only what fits in flight has come.
    await slow.waitFor((r) => r.length >= 1, 10_000);
    const first = slow.received[0].at;
    await new Promise((r) => setTimeout(r, 3_000));
    expect(slow.received.filter((w) => w.at - first < 3_000).length).toBeLessThanOrEqual(8);
    // And every organization's delivery arrives in the end.
    await slow.waitFor((r) => new Set(r.map((w) => w.path)).size === 12, 30_000);
  }, 90_000);
});

/** Room an answer frees on a full instance goes first to an organization with nothing in flight. */
describe('room freed on a full instance', () => {
  let service: IsolatedService;
  let slow: WebhookReceiver;
  let fast: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_DISPATCH_BATCH: '2', WEBHOOK_TIMEOUT_MS: '30000' });
    slow = await WebhookReceiver.start();
    slow.setDefault({ status: 200, delayMs: 3_000 });
    fast = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await service?.stop();
    await slow?.stop();
    await fast?.stop();
  });

  it("goes to a quiet organization's new delivery before the slow organizations' older backlog", async () => {
    const orgs = await Promise.all(Array.from({ length: 4 }, (_, i) => service.createOrg(`Backlog ${i}`)));
    for (const org of orgs) expectSuccess(await org.test.post('/webhooks', { url: slow.url(`/${org.id}`), event_types: ['invoice.created'] }), 201);
    for (const org of orgs) {
      for (let i = 0; i < 8; i++)
        expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    }
    const quiet = await service.createOrg('Quiet');
    expectSuccess(await quiet.test.post('/webhooks', { url: fast.url('/quiet'), event_types: ['invoice.created'] }), 201);
    // The instance is full: eight attempts (four times the batch) in flight, each answered after 3 seconds, 24 more waiting.
    await slow.waitFor((r) => r.length >= 8, 20_000);
    const at = Date.now();
    expectSuccess(await quiet.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
    await fast.waitFor((r) => r.length >= 1, 20_000);
    // The first room freed (within 3 seconds) is the quiet organization's, not the backlog's (which takes 9 more).
    expect(fast.received[0].at - at).toBeLessThan(5_000);
    expect(slow.received.length).toBeLessThan(32);
  }, 90_000);
});

async function createInvoice(api: Api): Promise<void> {
  expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '10' }] }), 201);
}

describe('an endpoint whose signing secret cannot be read', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_DISABLE_AFTER_FAILURES: '0' });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it("fails only its own deliveries, unsent; another organization's in the same batch go out", async () => {
    const broken = await service.createOrg('Broken secret');
    const fine = await service.createOrg('Fine');
    const bad = expectSuccess(await broken.test.post('/webhooks', { url: receiver.url('/broken'), event_types: ['invoice.created'] }), 201);
    expectSuccess(await fine.test.post('/webhooks', { url: receiver.url('/fine'), event_types: ['invoice.created'] }), 201);
    // The stored secret no longer opens (a corrupted value, or one sealed with a key this instance lacks).
    await withClient(databaseOf(service), (c) => c.query(`UPDATE webhook_endpoints SET secret = 'v1:00000000:AAAA' WHERE id = $1`, [bad.id]));
    await Promise.all([createInvoice(broken.test), createInvoice(fine.test)]);

    await receiver.waitFor((r) => r.some((w) => w.path === '/fine' && w.json?.type === 'invoice.created'), 10_000);
    const attempt = await eventually(async () => {
      const attempts = expectSuccess(await broken.test.post(`/webhooks/${bad.id}/attempts`, {})).items as Array<{ succeeded: boolean; error: string | null }>;
      if (!attempts.length) throw new Error('not attempted yet');
      return attempts[0];
    });
    expect(attempt).toMatchObject({ succeeded: false, error: expect.stringContaining('signing secret could not be read') });
    expect(receiver.received.some((w) => w.path === '/broken')).toBe(false);
  });
});

describe('an endpoint whose signing secret is sealed with a key this instance lacks', () => {
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    service = await startIsolatedService({ WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '300ms', WEBHOOK_DISABLE_AFTER_FAILURES: '5' });
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  it('fails its delivery for good once the schedule is spent, and stays readable and manageable', async () => {
    const org = await service.createOrg('Lost key');
    const endpoint = expectSuccess(await org.test.post('/webhooks', { url: receiver.url('/lost'), event_types: ['invoice.created'] }), 201);
    await withClient(databaseOf(service), (c) => c.query(`UPDATE webhook_endpoints SET secret = 'sealed:v1:deadbeef:AAAA' WHERE id = $1`, [endpoint.id]));
    await createInvoice(org.test);
    // Both attempts fail unsent; the last one's record (with the endpoint's failure count) is kept, so the delivery ends.
    await eventually(async () => {
      const { rows } = await withClient(databaseOf(service), (c) => c.query(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]));
      expect(rows.map((r: { status: string }) => r.status)).toEqual(['failed']);
    }, 15_000);
    expect(receiver.received.some((w) => w.path === '/lost')).toBe(false);
    // Reads and changes that do not need the secret work; keeping it through a rotation's grace period cannot.
    expect(expectSuccess(await org.test.get('/webhooks')).items.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(expectSuccess(await org.test.get(`/webhooks/${endpoint.id}`))).toMatchObject({ id: endpoint.id, consecutive_failures: 1 });
    expectSuccess(await org.test.put(`/webhooks/${endpoint.id}`, { enabled: false }));
    expectError(await org.test.post(`/webhooks/${endpoint.id}/rotate_secret`, { grace_period_seconds: 60 }), 400, { field: 'grace_period_seconds' });
    expect(expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/rotate_secret`, { grace_period_seconds: 0 })).secret).toMatch(/^whsec_/);
    // Only the current secret is opened to be kept: an unreadable previous one (replaced anyway) is no obstacle.
    await withClient(databaseOf(service), (c) =>
      c.query(
        `UPDATE webhook_endpoints SET previous_secret = 'sealed:v1:deadbeef:AAAA', previous_secret_expires_at = now() + interval '1 hour' WHERE id = $1`,
        [endpoint.id],
      ),
    );
    expect(expectSuccess(await org.test.post(`/webhooks/${endpoint.id}/rotate_secret`, { grace_period_seconds: 60 })).secret).toMatch(/^whsec_/);
  });
});
