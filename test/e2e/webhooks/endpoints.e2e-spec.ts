import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { untilStatementActive, withClient } from '../../support/pg';

const URL_A = 'https://merchant.example.com/hooks';

async function register(api: Api, body: Record<string, unknown> = {}) {
  return expectSuccess(await api.post('/webhooks', { url: URL_A, event_types: ['*'], ...body }), 201);
}

describe('webhook endpoints', () => {
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    org = await createOrg();
    other = await createOrg();
  });

  describe('authentication', () => {
    it.each([
      ['POST', '/webhooks'],
      ['GET', '/webhooks'],
      ['GET', '/webhooks/webhook_x'],
      ['PUT', '/webhooks/webhook_x'],
      ['DELETE', '/webhooks/webhook_x'],
      ['POST', '/webhooks/webhook_x/rotate_secret'],
      ['POST', '/webhooks/webhook_x/attempts'],
      ['POST', '/webhooks/webhook_x/redeliver'],
    ])('%s %s without a key is 401', async (method, path) => {
      expectError(await anonymous().request(method, path, method === 'GET' ? {} : { body: {} }), 401);
    });

    it('a read-only key cannot register an endpoint (403)', async () => {
      const readOnly = new Api(await createKey(org.id, 'test', true));
      expectError(await readOnly.post('/webhooks', { url: URL_A, event_types: ['*'] }), 403);
      expectSuccess(await readOnly.get('/webhooks'));
    });
  });

  it('registers an endpoint and shows the signing secret only once', async () => {
    const created = await register(org.test, { event_types: ['payment.updated', 'invoice.completed', 'payment.updated'], description: 'Orders' });
    expect(created).toMatchObject({
      url: URL_A,
      description: 'Orders',
      event_types: ['invoice.completed', 'payment.updated'],
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
    });
    expect(created.id).toMatch(/^webhook_[0-9a-f-]{36}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    const read = expectSuccess(await org.test.get(`/webhooks/${created.id}`));
    expect(read).not.toHaveProperty('secret');
    expect(read).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')));

    const list = expectSuccess(await org.test.get('/webhooks'));
    expect(list.items.map((e: any) => e.id)).toContain(created.id);
    expect(list.items.every((e: any) => !('secret' in e))).toBe(true);
  });

  it('takes at most 16 endpoints per organization and mode: the 17th is 400 too_many_endpoints, also when sent at once; a deleted one frees its place', async () => {
    const capped = await createOrg();
    const ids: string[] = [];
    for (let i = 0; i < 14; i++) ids.push((await register(capped.test, { description: `n${i}` })).id);
    // Three at once for the last two places: two are created, one refused.
    const raced = await Promise.all([1, 2, 3].map(() => capped.test.post('/webhooks', { url: URL_A, event_types: ['*'] })));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 400]);
    const refused = expectError(
      raced.find((r) => r.status === 400)!,
      400,
      { code: 'too_many_endpoints', field: 'url' },
    );
    expect(refused.validator.url).toMatch(/16/);
    expect(expectSuccess(await capped.test.get('/webhooks')).total).toBe(16);
    expectError(await capped.test.post('/webhooks', { url: URL_A, event_types: ['*'] }), 400, { code: 'too_many_endpoints' });
    // The live mode counts its own; another organization is not concerned.
    await register(capped.live);
    await register(other.test);
    expectSuccess(await capped.test.delete(`/webhooks/${ids[0]}`));
    await register(capped.test);
    expect(expectSuccess(await capped.test.get('/webhooks')).total).toBe(16);
  });

  it('accepts a single type or * as a string', async () => {
    expect((await register(org.test, { event_types: '*' })).event_types).toEqual(['*']);
    expect((await register(org.test, { event_types: 'invoice.voided' })).event_types).toEqual(['invoice.voided']);
    expect((await register(org.test, { event_types: ['invoice.voided', '*'] })).event_types).toEqual(['*']);
  });

  describe('validation', () => {
    it.each([
      [{ event_types: ['*'] }, 'url'],
      [{ url: 42, event_types: ['*'] }, 'url'],
      [{ url: 'not a url', event_types: ['*'] }, 'url'],
      [{ url: 'ftp://example.com/x', event_types: ['*'] }, 'url'],
      [{ url: 'https://user:pw@example.com/x', event_types: ['*'] }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}`, event_types: ['*'] }, 'url'],
      [{ url: URL_A }, 'event_types'],
      [{ url: URL_A, event_types: [] }, 'event_types'],
      [{ url: URL_A, event_types: ['invoice.exploded'] }, 'event_types'],
      [{ url: URL_A, event_types: 7 }, 'event_types'],
      [{ url: URL_A, event_types: ['*'], description: 5 }, 'description'],
      [{ url: URL_A, event_types: ['*'], description: 'x'.repeat(501) }, 'description'],
      [{ url: URL_A, event_types: ['*'], enabled: 'yes' }, 'enabled'],
    ])('POST %j is 400 on %s', async (body, field) => {
      expectError(await org.test.post('/webhooks', body), 400, { code: 'validation_failed', field });
    });

    it('PUT validates the same fields', async () => {
      const { id } = await register(org.test);
      expectError(await org.test.put(`/webhooks/${id}`, { url: 'nope' }), 400, { field: 'url' });
      expectError(await org.test.put(`/webhooks/${id}`, { event_types: ['nope'] }), 400, { field: 'event_types' });
      expectError(await org.test.put(`/webhooks/${id}`, { enabled: 'no' }), 400, { field: 'enabled' });
      // null names nothing to set: refused at the field, not a 500 (description takes null: it clears it)
      for (const field of ['url', 'event_types', 'enabled']) {
        expectError(await org.test.put(`/webhooks/${id}`, { [field]: null }), 400, { code: 'validation_failed', field });
      }
    });

    it('list bounds are checked', async () => {
      expectError(await org.test.get('/webhooks?limit=101'), 400, { field: 'limit' });
      expectError(await org.test.get('/webhooks?offset=-1'), 400, { field: 'offset' });
    });

    it('rotate_secret checks the grace period', async () => {
      const { id } = await register(org.test);
      expectError(await org.test.post(`/webhooks/${id}/rotate_secret`, { grace_period_seconds: -1 }), 400, { field: 'grace_period_seconds' });
      expectError(await org.test.post(`/webhooks/${id}/rotate_secret`, { grace_period_seconds: 604801 }), 400, { field: 'grace_period_seconds' });
    });
  });

  it('updates only the fields sent and records webhook_endpoint.updated with the previous values', async () => {
    const created = await register(org.test, { event_types: ['invoice.created'], description: 'before' });
    const updated = expectSuccess(await org.test.put(`/webhooks/${created.id}`, { url: 'https://merchant.example.com/v2', event_types: ['invoice.voided'] }));
    expect(updated).toMatchObject({
      id: created.id,
      url: 'https://merchant.example.com/v2',
      event_types: ['invoice.voided'],
      description: 'before',
      enabled: true,
    });

    const paused = expectSuccess(await org.test.put(`/webhooks/${created.id}`, { enabled: false, description: null }));
    expect(paused).toMatchObject({ enabled: false, disabled_reason: 'disabled through the API', description: null });
    const resumed = expectSuccess(await org.test.put(`/webhooks/${created.id}`, { enabled: true }));
    expect(resumed).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });

    const events = expectSuccess(await org.test.post('/events', { type: 'webhook_endpoint.updated' })).items.filter(
      (e: any) => e.data.object.id === created.id,
    );
    expect(events).toHaveLength(3);
    expect(events[2].data).toEqual({
      object: expect.objectContaining({ url: 'https://merchant.example.com/v2', event_types: ['invoice.voided'] }),
      previous_attributes: { url: URL_A, event_types: ['invoice.created'] },
    });
    expect(events[1].data.previous_attributes).toEqual({ enabled: true, disabled_reason: null, description: 'before' });
    expect(events[0].data.previous_attributes).toEqual({ enabled: false, disabled_reason: 'disabled through the API' });
    expect(JSON.stringify(events)).not.toContain('whsec_');
  });

  it('rotates the secret and returns the new one once', async () => {
    const created = await register(org.test);
    const rotated = expectSuccess(await org.test.post(`/webhooks/${created.id}/rotate_secret`, {}));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.id).toBe(created.id);
    expect(expectSuccess(await org.test.get(`/webhooks/${created.id}`))).not.toHaveProperty('secret');
  });

  it('answers a rotation sent again with the same Idempotency-Key as the first: one new secret', async () => {
    const created = await register(org.test);
    const headers = { headers: { 'idempotency-key': `rotate-${created.id}` } };
    const first = expectSuccess(await org.test.post(`/webhooks/${created.id}/rotate_secret`, { grace_period_seconds: 3600 }, headers));
    const again = expectSuccess(await org.test.post(`/webhooks/${created.id}/rotate_secret`, { grace_period_seconds: 3600 }, headers));
    expect(again.secret).toBe(first.secret);
    expect(first.secret).not.toBe(created.secret);
    // Another key: another rotation.
    const next = expectSuccess(await org.test.post(`/webhooks/${created.id}/rotate_secret`, {}, { headers: { 'idempotency-key': `rotate-2-${created.id}` } }));
    expect(next.secret).not.toBe(first.secret);
  });

  it('deletes an endpoint: gone from reads and lists, webhook_endpoint.deleted recorded', async () => {
    const created = await register(org.test);
    expect(expectSuccess(await org.test.delete(`/webhooks/${created.id}`))).toEqual({ id: created.id, deleted: true });
    expectError(await org.test.get(`/webhooks/${created.id}`), 404, { code: 'webhook_endpoint_not_found' });
    expectError(await org.test.delete(`/webhooks/${created.id}`), 404);
    expectError(await org.test.put(`/webhooks/${created.id}`, { enabled: true }), 404);
    const list = expectSuccess(await org.test.get('/webhooks?limit=100'));
    expect(list.items.map((e: any) => e.id)).not.toContain(created.id);
    const events = expectSuccess(await org.test.post('/events', { type: ['webhook_endpoint.created', 'webhook_endpoint.deleted'] })).items.filter(
      (e: any) => e.data.object.id === created.id,
    );
    expect(events.map((e: any) => e.type)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.created']);
  });

  it('lists newest first with the list shape', async () => {
    const fresh = await createOrg();
    const a = await register(fresh.test);
    const b = await register(fresh.test);
    const c = await register(fresh.test);
    const page = expectSuccess(await fresh.test.get('/webhooks?limit=2'));
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
    expect(page.items.map((e: any) => e.id)).toEqual([c.id, b.id]);
    const rest = expectSuccess(await fresh.test.get('/webhooks?limit=2&offset=2'));
    expect(rest).toMatchObject({ total: 3, has_more: false });
    expect(rest.items.map((e: any) => e.id)).toEqual([a.id]);
  });

  describe('scoping', () => {
    let id: string;
    beforeAll(async () => {
      id = (await register(org.test)).id;
    });

    it.each([
      ['another organization', () => other.test],
      ['the other mode', () => org.live],
    ])('an endpoint is 404 for %s on every route', async (_, api) => {
      const client = api();
      expectError(await client.get(`/webhooks/${id}`), 404, { code: 'webhook_endpoint_not_found' });
      expectError(await client.put(`/webhooks/${id}`, { enabled: false }), 404);
      expectError(await client.delete(`/webhooks/${id}`), 404);
      expectError(await client.post(`/webhooks/${id}/rotate_secret`, {}), 404);
      expectError(await client.post(`/webhooks/${id}/attempts`, {}), 404);
      expectError(await client.post(`/webhooks/${id}/redeliver`, { event_id: 'event_x' }), 404);
      const list = expectSuccess(await client.get('/webhooks?limit=100'));
      expect(list.items.map((e: any) => e.id)).not.toContain(id);
      expect(expectSuccess(await org.test.get(`/webhooks/${id}`)).enabled).toBe(true);
    });

    it('a malformed id is simply not found', async () => {
      expectError(await org.test.get('/webhooks/%20nope%27'), 404);
    });
  });

  describe('attempts list', () => {
    it('counts up to 10,000 attempts (or to the page asked for): past that, total is the count reached, total_exact false, and has_more stays exact', async () => {
      const fresh = await createOrg();
      // Subscribed to a type the rows below are not, so the fan-out queues nothing for them.
      const endpoint = await register(fresh.test, { event_types: ['product.created'] });
      // 10,030 events, each with one attempt to the endpoint, a millisecond apart (g = 1 the newest).
      await withClient(process.env.TEST_DATABASE_URL!, async (c) => {
        await c.query(
          `INSERT INTO events (id, organization_id, mode, type, data, created_at)
           SELECT 'event_' || substr(lpad(to_hex(ms), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(ms), 12, '0'), 9, 4) || '-7'
                    || substr(md5(g::text), 1, 3) || '-8' || substr(md5(g::text), 4, 3) || '-' || substr(md5(g::text), 7, 12),
                  $1, 'test', 'invoice.created', '{"object": {}}', to_timestamp(ms / 1000.0)
             FROM generate_series(1, 10030) g, LATERAL (SELECT (extract(epoch FROM now()) * 1000)::bigint - g AS ms) t`,
          [fresh.id],
        );
        await c.query(
          `INSERT INTO webhook_attempts (id, organization_id, mode, endpoint_id, delivery_id, event_id, attempt_number, url, succeeded, response_status, duration_ms, created_at)
           SELECT 'attempt_' || e.id, e.organization_id, 'test', $2, 'delivery_' || e.id, e.id, 1, 'https://merchant.example.com/a', true, 200, 5, e.created_at
             FROM events e WHERE e.organization_id = $1 AND e.mode = 'test' AND e.type = 'invoice.created'`,
          [fresh.id, endpoint.id],
        );
      });
      const attempts = (body: Record<string, unknown>) => fresh.test.post(`/webhooks/${endpoint.id}/attempts`, body);
      const first = expectSuccess(await attempts({}));
      expect(first).toMatchObject({ total: 10000, total_exact: false, limit: 20, offset: 0, has_more: true });
      expect(first.items).toHaveLength(20);
      const deep = expectSuccess(await attempts({ offset: 10000, limit: 20 }));
      expect(deep).toMatchObject({ total: 10020, total_exact: false, has_more: true });
      const last = expectSuccess(await attempts({ offset: 10020, limit: 20 }));
      expect(last).toMatchObject({ total: 10030, total_exact: true, has_more: false });
      expect(last.items).toHaveLength(10);
      // One event's attempts: under the cap, exact.
      const one = expectSuccess(await attempts({ event_id: last.items[0].event_id }));
      expect(one).toMatchObject({ total: 1, total_exact: true, has_more: false });
    });
  });
});

/**
 * Deleting an endpoint while the fan-out is queueing deliveries to it: the fan-out reads its target
 * endpoints under a share lock, so the delete waits for it and then cancels what it queued (or comes
 * first, and nothing is queued). Without that, a delivery committed just after the delete's cancel
 * stayed pending for good (no pass claims a deleted endpoint's deliveries, and retention keeps its month).
 */
describe('webhook endpoints deleted while the fan-out queues deliveries to them', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({});
  });
  afterAll(async () => service?.stop());

  it('leaves none of its deliveries pending', async () => {
    const org = await service.createOrg('Deleted during fan-out');
    const endpoint = await register(org.test);
    const db = service.databaseUrl!;
    // The fan-out's insert of a delivery to this endpoint is held a moment: the delete comes in between its read and its commit.
    await withClient(db, (c) =>
      c.query(`CREATE FUNCTION slow_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN IF NEW.endpoint_id = '${endpoint.id}' THEN PERFORM pg_sleep(1.5); END IF; RETURN NEW; END $$;
               CREATE TRIGGER slow_fan_out BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION slow_fan_out()`),
    );
    try {
      await register(org.test, { url: 'https://other.example.com/hooks' });
      const held = await untilStatementActive(db, '%INSERT INTO webhook_deliveries%');
      expect(held).toBe(true);
      expectSuccess(await org.test.delete(`/webhooks/${endpoint.id}`));
      const statuses = async () =>
        (await withClient(db, (c) => c.query(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]))).rows.map(
          (r) => r.status as string,
        );
      // Once the fan-out has committed: what it queued to the deleted endpoint is cancelled, not pending.
      let seen: string[] = [];
      for (let i = 0; i < 100; i++) {
        seen = await statuses();
        if (seen.length) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((s) => s === 'pending')).toEqual([]);
    } finally {
      await withClient(db, (c) => c.query(`DROP TRIGGER slow_fan_out ON webhook_deliveries; DROP FUNCTION slow_fan_out()`));
    }
  });
});
