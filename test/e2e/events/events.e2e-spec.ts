import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg, TestOrg } from '../../support/factories';
import { withClient } from '../../support/pg';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('events', () => {
  let org: TestOrg;

  beforeAll(async () => {
    org = await createOrg();
  });

  it('without a key is 401', async () => {
    expectError(await anonymous().post('/events', {}), 401);
    expectError(await anonymous().post('/events/event_x', {}), 401);
  });

  it('records each change with id, type, time, scope and the object; reads one by id', async () => {
    const created = expectSuccess(await org.test.post('/webhooks', { url: 'https://merchant.example.com/a', event_types: ['*'] }), 201);
    const list = expectSuccess(await org.test.post('/events', {}));
    const event = list.items.find((e: any) => e.type === 'webhook_endpoint.created' && e.data.object.id === created.id);
    expect(event).toEqual({
      id: expect.stringMatching(/^event_[0-9a-f-]{36}$/),
      type: 'webhook_endpoint.created',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      organization_id: org.id,
      mode: 'test',
      data: { object: Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')) },
    });
    expect(expectSuccess(await org.test.post(`/events/${event.id}`))).toEqual(event);
  });

  it('lists newest first, filters by type and time, pages with the list shape', async () => {
    const fresh = await createOrg();
    const a = expectSuccess(await fresh.test.post('/webhooks', { url: 'https://merchant.example.com/a', event_types: ['*'] }), 201);
    await sleep(1100);
    expectSuccess(await fresh.test.put(`/webhooks/${a.id}`, { description: 'changed' }));
    expectSuccess(await fresh.test.delete(`/webhooks/${a.id}`));

    const all = expectSuccess(await fresh.test.post('/events', {}));
    expect(all).toMatchObject({ total: 3, total_exact: true, limit: 20, offset: 0, has_more: false });
    expect(all.items.map((e: any) => e.type)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.created']);

    const page = expectSuccess(await fresh.test.post('/events', { limit: 1, offset: 1 }));
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1, has_more: true });
    expect(page.items.map((e: any) => e.type)).toEqual(['webhook_endpoint.updated']);

    const one = expectSuccess(await fresh.test.post('/events', { type: 'webhook_endpoint.updated' }));
    expect(one.items.map((e: any) => e.type)).toEqual(['webhook_endpoint.updated']);
    const two = expectSuccess(await fresh.test.post('/events', { type: ['webhook_endpoint.created', 'webhook_endpoint.deleted'] }));
    expect(two.items.map((e: any) => e.type)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.created']);
    expect(expectSuccess(await fresh.test.post('/events', { type: 'invoice.completed' }))).toMatchObject({ total: 0, items: [] });

    const createdAt = all.items[2].created_at;
    const laterAt = all.items[0].created_at;
    expect(laterAt > createdAt).toBe(true);
    const upTo = expectSuccess(await fresh.test.post('/events', { created_at_to: createdAt }));
    expect(upTo.items.map((e: any) => e.type)).toEqual(['webhook_endpoint.created']);
    // from the update's second: the update and the delete (which may fall in the next second), not the creation (1.1 s before)
    const from = expectSuccess(await fresh.test.post('/events', { created_at_from: all.items[1].created_at }));
    expect(from.items.map((e: any) => e.type).sort()).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated']);
    const day = createdAt.slice(0, 10);
    expect(expectSuccess(await fresh.test.post('/events', { created_at_from: day, created_at_to: `${laterAt.replace(' ', 'T')}.999Z` })).total).toBe(3);
    expect(expectSuccess(await fresh.test.post('/events', { created_at_to: '2000-01-01' })).total).toBe(0);
  });

  it('counts up to 10,000 matching events (or to the page asked for): past that, total is the count reached, total_exact false, and has_more stays exact', async () => {
    const fresh = await createOrg();
    // 10,030 events, a millisecond apart (newest first: g = 1 is the newest), 30 of them invoice.completed.
    await withClient(process.env.TEST_DATABASE_URL!, (c) =>
      c.query(
        `INSERT INTO events (id, organization_id, mode, type, data, created_at)
         SELECT 'event_' || substr(lpad(to_hex(ms), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(ms), 12, '0'), 9, 4) || '-7'
                  || substr(md5(g::text), 1, 3) || '-8' || substr(md5(g::text), 4, 3) || '-' || substr(md5(g::text), 7, 12),
                $1, 'test', CASE WHEN g <= 30 THEN 'invoice.completed' ELSE 'invoice.created' END, '{"object": {}}', to_timestamp(ms / 1000.0)
           FROM generate_series(1, 10030) g, LATERAL (SELECT (extract(epoch FROM now()) * 1000)::bigint - g AS ms) t`,
        [fresh.id],
      ),
    );
    const first = expectSuccess(await fresh.test.post('/events', {}));
    expect(first).toMatchObject({ total: 10000, total_exact: false, limit: 20, offset: 0, has_more: true });
    expect(first.items).toHaveLength(20);
    // A filter under the cap is counted exactly.
    expect(expectSuccess(await fresh.test.post('/events', { type: 'invoice.completed', limit: 100 }))).toMatchObject({
      total: 30,
      total_exact: true,
      has_more: false,
    });
    // Past the cap the count reaches the page's end: still more after it...
    const deep = expectSuccess(await fresh.test.post('/events', { offset: 10000, limit: 20 }));
    expect(deep).toMatchObject({ total: 10020, total_exact: false, has_more: true });
    expect(deep.items).toHaveLength(20);
    // ...and the last page is counted exactly, with nothing after it.
    const last = expectSuccess(await fresh.test.post('/events', { offset: 10020, limit: 20 }));
    expect(last).toMatchObject({ total: 10030, total_exact: true, has_more: false });
    expect(last.items).toHaveLength(10);
    expect(last.items.at(-1).type).toBe('invoice.created');
  });

  it.each([
    [{ type: 'invoice.exploded' }, 'type'],
    [{ type: ['payment.created', 5] }, 'type'],
    [{ type: [] }, 'type'],
    [{ type: 12 }, 'type'],
    [{ created_at_from: 'yesterday' }, 'created_at_from'],
    [{ created_at_to: '2026-13-01' }, 'created_at_to'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ offset: -1 }, 'offset'],
  ])('POST /events %j is 400 on %s', async (body, field) => {
    expectError(await org.test.post('/events', body), 400, { code: 'validation_failed', field });
  });

  it('another organization and the other mode never see the events (404 by id)', async () => {
    const other = await createOrg();
    const created = expectSuccess(await org.test.post('/webhooks', { url: 'https://merchant.example.com/b', event_types: ['*'] }), 201);
    const event = expectSuccess(await org.test.post('/events', { type: 'webhook_endpoint.created' })).items.find((e: any) => e.data.object.id === created.id);
    expect(event).toBeDefined();
    for (const api of [other.test, org.live]) {
      expectError(await api.post(`/events/${event.id}`), 404, { code: 'event_not_found' });
      const list = expectSuccess(await api.post('/events', { limit: 100 }));
      expect(list.items.map((e: any) => e.id)).not.toContain(event.id);
    }
    expectError(await org.test.post('/events/event_00000000-0000-0000-0000-000000000000'), 404);
    expectError(await org.test.post('/events/not%20an%20id'), 404);
  });
});
