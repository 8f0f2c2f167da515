import { Api } from '../../support/api';
import { addMember, ConsoleClient, consoleOrg, sql } from '../../support/console-client';
import { expectSuccess } from '../../support/envelope';
import { runWorkerPass } from '../../support/workers';

const newKeyOf = (page: string) => /id="new-key">([^<]+)</.exec(page)![1];
const keyIdOf = async (key: string) =>
  (await sql<{ id: string }>(`SELECT id FROM api_keys WHERE prefix = $1 AND key_hash = encode(sha256($2::bytea), 'hex')`, [key.slice(0, 14), key]))[0].id;
const works = async (key: string) => (await new Api(key).get('/auth/debug_token')).status;

/** Polls until `check` holds (the cross-process key cache drops a changed key within about two seconds). */
async function eventually(check: () => Promise<boolean>, ms = 6000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function createKey(client: ConsoleClient, mode: 'test' | 'live', form: Record<string, string>): Promise<string> {
  const res = await client.submit(`/console/${mode}/api-keys`, `/console/${mode}/api-keys`, form);
  if (res.status !== 201) throw new Error(`create key: ${res.status}`);
  return newKeyOf(res.text);
}

describe('console: API keys with names, rolls, revokes and last use', () => {
  it('rolls a key: the old key works during the grace period and is refused after it; the new one works; audit rows name the member', async () => {
    const org = await consoleOrg();
    const old = await createKey(org.owner, 'test', { name: 'Shop backend', access: 'full' });
    const oldId = await keyIdOf(old);
    expect(await works(old)).toBe(200);
    const page = await org.owner.get('/console/test/api-keys');
    expect(page.text).toContain('Shop backend');
    expect(page.text).toContain(`action="/console/test/api-keys/${oldId}/roll"`);

    const rolled = await org.owner.submit('/console/test/api-keys', `/console/test/api-keys/${oldId}/roll`, { grace_seconds: '3600' });
    expect(rolled.status).toBe(201);
    const fresh = newKeyOf(rolled.text);
    expect(fresh).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(rolled.text).toMatch(/id="rolled-until">[^<]*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    // Both work during the grace period; the new key has the old one's name and access.
    expect(await works(old)).toBe(200);
    expect(expectSuccess(await new Api(fresh).get('/auth/debug_token'))).toMatchObject({ mode: 'test', read_only: false });
    const [row] = await sql<{ name: string; read_only: boolean; left: number; rolled_to: string }>(
      `SELECT n.name, n.read_only, extract(epoch FROM o.expires_at - now())::int AS left, o.rolled_to
         FROM api_keys o JOIN api_keys n ON n.id = o.rolled_to WHERE o.id = $1`,
      [oldId],
    );
    expect(row).toMatchObject({ name: 'Shop backend', read_only: false, rolled_to: await keyIdOf(fresh) });
    expect(row.left).toBeGreaterThan(3590);
    expect(row.left).toBeLessThanOrEqual(3600);
    // A rolled key cannot be rolled again.
    expect((await org.owner.submit('/console/test/api-keys', `/console/test/api-keys/${oldId}/roll`, { grace_seconds: '0' })).status).toBe(400);

    // The grace period ends (moved to two seconds from now): then the old key is refused, the new one still works.
    await sql(`UPDATE api_keys SET expires_at = now() + interval '2 seconds' WHERE id = $1`, [oldId]);
    await eventually(async () => (await works(old)) === 401);
    expect(await works(fresh)).toBe(200);
    expect((await org.owner.get('/console/test/api-keys')).text).toContain('Rolled; no longer accepted since');

    // Roll with no grace: the key stops at once.
    const other = await createKey(org.owner, 'test', { name: 'Cron', access: 'read_only' });
    const now = await org.owner.submit('/console/test/api-keys', `/console/test/api-keys/${await keyIdOf(other)}/roll`, { grace_seconds: '0' });
    expect(now.status).toBe(201);
    expect(await works(other)).toBe(401);
    expect(expectSuccess(await new Api(newKeyOf(now.text)).get('/auth/debug_token'))).toMatchObject({ read_only: true });

    // Revoke: refused at once.
    const freshId = await keyIdOf(fresh);
    expect((await org.owner.submit('/console/test/api-keys', `/console/test/api-keys/${freshId}/revoke`)).status).toBe(200);
    expect(await works(fresh)).toBe(401);
    expect((await org.owner.submit('/console/test/api-keys', `/console/test/api-keys/${freshId}/roll`, { grace_seconds: '0' })).status).toBe(400);

    const [owner] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE email = $1`, [org.ownerEmail]);
    const audit = expectSuccess(await new Api(org.testKey).get('/audit_log?limit=50')).items as Array<Record<string, string>>;
    const keyActions = audit.filter((e) => e.action.startsWith('api_key.'));
    expect(keyActions.map((e) => [e.action, e.target])).toEqual(
      expect.arrayContaining([
        ['api_key.create', oldId],
        ['api_key.roll', oldId],
        ['api_key.revoke', freshId],
        ['api_key.create_read_only', await keyIdOf(other)],
      ]),
    );
    for (const e of keyActions) expect(e).toMatchObject({ actor_type: 'member', actor_id: owner.id, mode: 'test' });
  });

  it('refuses a grace period it does not offer, and answers 404 for another organization’s key and the other mode’s', async () => {
    const [a, b] = await Promise.all([consoleOrg(), consoleOrg()]);
    const [aKey] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = 'test'`, [a.organizationId]);
    expect((await a.owner.submit('/console/test/api-keys', `/console/test/api-keys/${aKey.id}/roll`, { grace_seconds: '5' })).status).toBe(400);
    expect((await a.owner.submit('/console/test/api-keys', `/console/test/api-keys/${aKey.id}/roll`, {})).status).toBe(400);
    expect((await b.owner.submit('/console/test/api-keys', `/console/test/api-keys/${aKey.id}/roll`, { grace_seconds: '0' })).status).toBe(404);
    expect((await a.owner.submit('/console/live/api-keys', `/console/live/api-keys/${aKey.id}/roll`, { grace_seconds: '0' })).status).toBe(404);
    expect(await works(a.testKey)).toBe(200);
    const longName = await a.owner.submit('/console/test/api-keys', '/console/test/api-keys', { name: 'x'.repeat(101), access: 'full' });
    expect(longName.status).toBe(400);
  });

  it('shows when a key was last used, written at most once a minute and off the request', async () => {
    const org = await consoleOrg();
    const key = await createKey(org.owner, 'test', { name: 'Reporting', access: 'read_only' });
    const id = await keyIdOf(key);
    const lastUsed = async () => {
      const text = (await org.owner.get('/console/test/api-keys')).text;
      return /<td data-last-used>([^<]*)</.exec(text.slice(text.indexOf(`data-key="${id}"`)))![1];
    };
    expect(await lastUsed()).toBe('never');
    for (let i = 0; i < 5; i++) expect(await works(key)).toBe(200);
    // Nothing is written by the requests themselves.
    expect(await sql(`SELECT 1 FROM api_key_usage WHERE key_id = $1`, [id])).toHaveLength(0);
    await runWorkerPass(new Api(org.testKey), 'api-key-usage');
    const [first] = await sql<{ last_used_at: Date }>(`SELECT last_used_at FROM api_key_usage WHERE key_id = $1`, [id]);
    expect(Date.now() - first.last_used_at.getTime()).toBeLessThan(60_000);
    expect(await lastUsed()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // Used again within the minute: not written again.
    expect(await works(key)).toBe(200);
    await runWorkerPass(new Api(org.testKey), 'api-key-usage');
    const [second] = await sql<{ last_used_at: Date }>(`SELECT last_used_at FROM api_key_usage WHERE key_id = $1`, [id]);
    expect(second.last_used_at.getTime()).toBe(first.last_used_at.getTime());
  });
});

describe('console: API keys and the role table', () => {
  it('developer: changes test keys; in live mode only read-only keys, and the server refuses changes to full ones', async () => {
    const org = await consoleOrg();
    const dev = (await addMember(org.owner, 'developer')).client;
    const testKey = await createKey(dev, 'test', { name: 'dev', access: 'full' });
    const rolled = await dev.submit('/console/test/api-keys', `/console/test/api-keys/${await keyIdOf(testKey)}/roll`, { grace_seconds: '3600' });
    expect(rolled.status).toBe(201);

    const live = await dev.get('/console/live/api-keys');
    expect(live.status).toBe(200);
    expect(live.text).toContain(org.liveKey.slice(0, 14));
    // The create form offers read-only access only, and the full live key has no roll or revoke button.
    expect(live.text).toContain('action="/console/live/api-keys"');
    expect(live.text).not.toContain('value="full"');
    const [fullLive] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = 'live' AND read_only = false`, [
      org.organizationId,
    ]);
    expect(live.text).not.toContain(`/api-keys/${fullLive.id}/roll"`);
    expect(live.text).not.toContain(`/api-keys/${fullLive.id}/revoke"`);
    expect((await dev.submit('/console/live/api-keys', '/console/live/api-keys', { access: 'full' })).status).toBe(403);
    expect((await dev.submit('/console/live/api-keys', `/console/live/api-keys/${fullLive.id}/roll`, { grace_seconds: '0' })).status).toBe(403);
    expect((await dev.submit('/console/live/api-keys', `/console/live/api-keys/${fullLive.id}/revoke`)).status).toBe(403);
    expect(await works(org.liveKey)).toBe(200);

    // A read-only live key is theirs to create, roll and revoke.
    const readOnlyLive = await createKey(dev, 'live', { name: 'dashboards', access: 'read_only' });
    const readOnlyId = await keyIdOf(readOnlyLive);
    expect(await works(readOnlyLive)).toBe(200);
    expect((await dev.submit('/console/live/api-keys', `/console/live/api-keys/${readOnlyId}/revoke`)).status).toBe(200);
    await eventually(async () => (await works(readOnlyLive)) === 401);
  });

  it.each(['analyst', 'support'])('%s: no key forms or buttons, and the server refuses create, roll and revoke', async (role) => {
    const org = await consoleOrg();
    const m = (await addMember(org.owner, role)).client;
    const [key] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = 'test'`, [org.organizationId]);
    const page = await m.get('/console/test/api-keys');
    expect(page.status).toBe(200);
    for (const form of ['action="/console/test/api-keys"', '/roll"', '/revoke"']) expect(page.text).not.toContain(form);
    expect((await m.submit('/console/test/api-keys', '/console/test/api-keys', { access: 'read_only' })).status).toBe(403);
    expect((await m.submit('/console/test/api-keys', `/console/test/api-keys/${key.id}/roll`, { grace_seconds: '0' })).status).toBe(403);
    expect((await m.submit('/console/test/api-keys', `/console/test/api-keys/${key.id}/revoke`)).status).toBe(403);
    expect(await works(org.testKey)).toBe(200);
  });
});
