import { Webhook } from 'standardwebhooks';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createDatabase, dropDatabase, withClient } from '../../support/pg';
import { ADMIN_TOKEN, RunningServer, startServer } from '../../support/server';
import { attemptsOf, eventually, sleep, WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Several service processes on one database: nothing lost when a process is killed between the
 * change and the delivery, each attempt sent once by several instances, and the address guard.
 */
function pgServer(): string {
  const url = process.env.TEST_PG_SERVER_URL;
  if (!url) throw new Error('these tests run several service processes on one PostgreSQL database: start PostgreSQL on 127.0.0.1:5432 or set DATABASE_URL');
  return url;
}

async function createOrgOn(server: RunningServer) {
  const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Durable org' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  if (res.status !== 201) throw new Error(res.text);
  return { id: res.body.data.organization_id as string, key: res.body.data.test_key as string };
}

async function createEndpoint(api: Api, url: string, eventTypes: string[] = ['*']) {
  return expectSuccess(await api.post('/webhooks', { url, event_types: eventTypes }), 201);
}

describe('webhook durability', () => {
  const servers: RunningServer[] = [];
  const databases: string[] = [];
  const receivers: WebhookReceiver[] = [];

  async function database() {
    const url = await createDatabase(pgServer());
    databases.push(url);
    return url;
  }

  async function server(databaseUrl: string, env: Record<string, string>) {
    const started = await startServer({ databaseUrl, env });
    servers.push(started);
    return started;
  }

  async function receiver() {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  }

  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop('SIGKILL');
    for (const r of receivers.splice(0)) await r.stop();
    for (const d of databases.splice(0)) await dropDatabase(pgServer(), d);
  });

  it('a service killed (SIGKILL) after the change and before the delivery: the next process delivers it, once', async () => {
    const db = await database();
    const hook = await receiver();
    // Sends nothing (its dispatcher off, as a process that dies before its first pass): the event below waits in the outbox.
    const first = await server(db, { WEBHOOK_DISPATCHER: 'false' });
    const org = await createOrgOn(first);
    const api = new Api(org.key, first.baseUrl);
    const endpoint = await createEndpoint(api, hook.url());
    const other = await createEndpoint(api, 'https://unrelated.example.com/hook', ['invoice.voided']);
    const event = expectSuccess(await api.post('/events', { type: 'webhook_endpoint.created' })).items.find((e: any) => e.data.object.id === other.id);

    // The fan-out queues the delivery after the commit; nothing sends it (however long the wait).
    const pendingRows = async () =>
      (await withClient(db, (c) => c.query(`SELECT status, attempt_count FROM webhook_deliveries WHERE event_id = $1`, [event.id]))).rows;
    await eventually(async () => expect(await pendingRows()).toEqual([{ status: 'pending', attempt_count: 0 }]));
    await sleep(500);
    expect(hook.received).toHaveLength(0);
    await first.stop('SIGKILL');
    expect(await pendingRows()).toEqual([{ status: 'pending', attempt_count: 0 }]);

    const second = await server(db, { WEBHOOK_DISPATCH_INTERVAL_MS: '100' });
    const [delivery] = await hook.waitFor((r) => r.length >= 1);
    expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(event);
    await sleep(600);
    expect(hook.received).toHaveLength(1);
    const attempts = await attemptsOf(new Api(org.key, second.baseUrl), endpoint.id, 1);
    expect(attempts.map((a: any) => [a.event_id, a.attempt_number, a.succeeded])).toEqual([[event.id, 1, true]]);
  });

  it("a service that exits between an event's commit and its fan-out: the next start queues and sends it once per endpoint", async () => {
    const db = await database();
    const hook = await receiver();
    // Two endpoints, set up and fanned out (the second's creation reaches the first) while nothing sends.
    const setup = await server(db, { WEBHOOK_DISPATCHER: 'false' });
    const org = await createOrgOn(setup);
    const one = await createEndpoint(new Api(org.key, setup.baseUrl), hook.url('/one'));
    const two = await createEndpoint(new Api(org.key, setup.baseUrl), hook.url('/two'), ['invoice.created']);
    const deliveriesOf = async (eventId: string) =>
      (await withClient(db, (c) => c.query(`SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id`, [eventId]))).rows.map(
        (r: { endpoint_id: string }) => r.endpoint_id,
      );
    const creationOfTwo = await withClient(db, async (c) => {
      const rows = await c.query(`SELECT id FROM events WHERE type = 'webhook_endpoint.created' AND data->'object'->>'id' = $1`, [two.id]);
      return rows.rows[0].id as string;
    });
    await eventually(async () => expect(await deliveriesOf(creationOfTwo)).toEqual([one.id]));
    await setup.stop('SIGKILL');

    // Exits right before the fan-out sees its first event in this process: the invoice's, committed.
    const crashing = await server(db, { WEBHOOK_DISPATCHER: 'false', DURABLE_HANDLERS_CRASH_BEFORE: 'webhooks.fan_out' });
    await new Api(org.key, crashing.baseUrl).post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }).catch(() => null);
    expect(await Promise.race([crashing.exited, sleep(15_000).then(() => 'still running')])).toBe(1);
    expect(crashing.output()).toContain('durable handler webhooks.fan_out: exiting before its event 1');
    const created = await withClient(db, (c) => c.query(`SELECT id FROM events WHERE organization_id = $1 AND type = 'invoice.created'`, [org.id]));
    expect(created.rows).toHaveLength(1);
    const eventId = created.rows[0].id as string;
    expect(await deliveriesOf(eventId)).toEqual([]);

    const next = await server(db, { WEBHOOK_DISPATCH_INTERVAL_MS: '100' });
    await hook.waitFor((r) => r.filter((d) => d.headers['webhook-id'] === eventId).length >= 2);
    await sleep(1000);
    const sent = hook.received.map((d) => `${d.path} ${String(d.headers['webhook-id'])}`);
    expect(sent.filter((line) => line.endsWith(eventId)).sort()).toEqual([`/one ${eventId}`, `/two ${eventId}`]);
    // Nothing fanned out before the crash is queued again: the second endpoint's creation went to the first once.
    expect(sent.filter((line) => line.endsWith(creationOfTwo))).toEqual([`/one ${creationOfTwo}`]);
    expect(sent).toHaveLength(3);
    expect(await deliveriesOf(eventId)).toEqual([one.id, two.id].sort());
    const attempts = await attemptsOf(new Api(org.key, next.baseUrl), two.id, 1);
    expect(attempts.map((a: any) => [a.event_id, a.attempt_number, a.succeeded])).toEqual([[eventId, 1, true]]);
  });

  it('on SIGTERM the attempt in flight finishes and is recorded before the process exits', async () => {
    const db = await database();
    const hook = await receiver();
    const only = await server(db, { WEBHOOK_DISPATCH_INTERVAL_MS: '100' });
    const org = await createOrgOn(only);
    const api = new Api(org.key, only.baseUrl);
    await createEndpoint(api, hook.url());
    hook.setDefault({ status: 200, delayMs: 1500 });
    await createEndpoint(api, 'https://unrelated.example.com/hook', ['invoice.voided']);
    await hook.waitFor((r) => r.length >= 1);
    expect(await only.stop('SIGTERM')).toBe(0);
    const rows = await withClient(db, (c) =>
      c.query(`SELECT d.status, a.succeeded, a.response_status FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id`),
    );
    expect(rows.rows).toEqual([{ status: 'succeeded', succeeded: true, response_status: 200 }]);
  });

  it('a change rolled back records no event and sends nothing', async () => {
    const db = await database();
    const hook = await receiver();
    const only = await server(db, { WEBHOOK_DISPATCH_INTERVAL_MS: '100' });
    const org = await createOrgOn(only);
    const api = new Api(org.key, only.baseUrl);
    await createEndpoint(api, hook.url());
    const before = expectSuccess(await api.post('/events', {})).total;
    // The endpoint insert fails after its event was recorded in the same transaction (a check it breaks).
    await withClient(db, (c) => c.query(`ALTER TABLE webhook_endpoints ADD CONSTRAINT short_description CHECK (length(description) < 5)`));
    const res = await api.post('/webhooks', { url: 'https://unrelated.example.com/hook', event_types: ['*'], description: 'far too long' });
    expect(res.status).toBe(500);
    await sleep(600);
    expect(expectSuccess(await api.post('/events', {})).total).toBe(before);
    const rows = await withClient(db, (c) => c.query(`SELECT count(*)::int AS n FROM webhook_deliveries`));
    expect(rows.rows[0].n).toBe(0);
    expect(hook.received).toHaveLength(0);
  });

  it('two instances on one database send each delivery once', async () => {
    const db = await database();
    const hook = await receiver();
    hook.setDefault({ status: 200, delayMs: 50 });
    const env = { WEBHOOK_DISPATCH_INTERVAL_MS: '20', WEBHOOK_DISPATCH_BATCH: '3' };
    const a = await server(db, env);
    const b = await server(db, env);
    const org = await createOrgOn(a);
    const apiA = new Api(org.key, a.baseUrl);
    const apiB = new Api(org.key, b.baseUrl);
    await createEndpoint(apiA, hook.url('/one'));
    await createEndpoint(apiB, hook.url('/two'));

    // 14 more: the organization's 16 endpoints in all (the most one mode may have).
    const count = 14;
    await Promise.all(Array.from({ length: count }, (_, i) => createEndpoint(i % 2 ? apiA : apiB, 'https://unrelated.example.com/hook', ['invoice.voided'])));
    // Endpoint /one also receives the creation of /two: count + 1 deliveries to /one, count to /two.
    await hook.waitFor((r) => r.length >= 2 * count + 1, 30_000);
    await sleep(1000);
    const seen = hook.received.map((r) => `${r.path} ${r.headers['webhook-id']}`);
    expect(seen).toHaveLength(2 * count + 1);
    expect(new Set(seen).size).toBe(seen.length);
    await eventually(async () => {
      const attempts = await withClient(db, (c) => c.query(`SELECT count(*)::int AS n, max(attempt_number) AS max FROM webhook_attempts`));
      expect(attempts.rows[0]).toEqual({ n: 2 * count + 1, max: 1 });
    });
  });

  describe('address guard (WEBHOOK_ALLOW_PRIVATE=false)', () => {
    it('refuses plain http and private, loopback and link-local addresses at registration', async () => {
      const db = await database();
      const guarded = await server(db, { WEBHOOK_ALLOW_PRIVATE: 'false' });
      const api = new Api((await createOrgOn(guarded)).key, guarded.baseUrl);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://[::1]/hook',
        'https://10.1.2.3/hook',
        'https://192.168.0.10/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::ffff:127.0.0.1]/hook',
        'http://example.com/hook',
      ]) {
        const res = await api.post('/webhooks', { url, event_types: ['*'] });
        expectError(res, 400, { code: 'validation_failed', field: 'url' });
      }
      expectSuccess(await api.post('/webhooks', { url: 'https://93.184.215.14/hook', event_types: ['*'] }), 201);
    });

    it('checks the addresses again at delivery: a URL registered without the guard is refused and the attempt records why', async () => {
      const db = await database();
      const hook = await receiver();
      const open = await server(db, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCHER: 'false' });
      const org = await createOrgOn(open);
      const api = new Api(org.key, open.baseUrl);
      const byName = await createEndpoint(api, `https://localhost:${hook.port}/by-name`);
      const byAddress = await createEndpoint(api, `https://127.0.0.1:${hook.port}/by-address`);
      const plain = await createEndpoint(api, hook.url('/plain'));

      const guarded = await server(db, { WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_DISPATCH_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '10h' });
      await createEndpoint(api, 'https://unrelated.example.com/hook', ['invoice.voided']);
      const guardedApi = new Api(org.key, guarded.baseUrl);
      const errorOf = async (id: string) => {
        for (let i = 0; i < 100; i++) {
          const items = expectSuccess(await guardedApi.post(`/webhooks/${id}/attempts`, {})).items;
          if (items.length) return [...new Set<string>(items.map((a: any) => JSON.stringify([a.succeeded, a.error])))].map((t) => JSON.parse(t));
          await sleep(100);
        }
        throw new Error(`no attempt for ${id}`);
      };
      // The address it resolved to is not told (the merchant reads this: it would map the service's own network).
      expect(await errorOf(byName.id)).toEqual([[false, 'refused: localhost resolves to a private, loopback or link-local address']]);
      expect(await errorOf(byAddress.id)).toEqual([[false, 'refused: URL must not point at a private, loopback or link-local address']]);
      expect(await errorOf(plain.id)).toEqual([[false, 'refused: URL must use https']]);
      expect(hook.received).toHaveLength(0);
    });
  });
});
