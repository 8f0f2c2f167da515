import { Client } from 'pg';
import { Api, baseUrl, testDatabaseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { addMember, ConsoleClient, consoleOrg, PASSWORD, sql } from '../../support/console-client';
import { runCli, sharedCliEnv } from '../../support/server';
import { createInvoice } from '../invoices/invoice-helpers';

/**
 * Runs `during` inside a transaction of the test's own, and `request` beside it: the request is let go once it waits for
 * that transaction (a lock or a row it holds, `waitsOn` a pattern of the request's statement), so what the transaction
 * did happens between the request's reading of the member and its change.
 */
async function whileWaiting<T>(
  hold: (c: Client) => Promise<void>,
  request: () => Promise<T>,
  waitsOn: string,
  during: (c: Client) => Promise<void>,
): Promise<T> {
  const c = new Client({ connectionString: testDatabaseUrl() });
  await c.connect();
  try {
    await c.query('BEGIN');
    await hold(c);
    const answer = request();
    for (let i = 0; ; i++) {
      const waiting = await sql(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [waitsOn]);
      if (waiting.length) break;
      if (i > 400) throw new Error(`no statement like ${waitsOn} waited`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await during(c);
    await c.query('COMMIT');
    return await answer;
  } finally {
    await c.end();
  }
}

describe('management console: members and sessions', () => {
  it('org:create --owner-email prints a one-time link; the owner sets a password, signs in and sees the organization', async () => {
    const org = await consoleOrg();
    const page = await org.owner.get('/console/test');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Console ');
    expect(page.text).toContain(org.ownerEmail);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const cookie = (await new ConsoleClient().signIn(org.ownerEmail, PASSWORD)).headers.getSetCookie().find((c) => c.startsWith('console_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    // The session token is stored only hashed.
    const token = cookie.split(';')[0].split('=')[1];
    expect(await sql(`SELECT 1 FROM console_sessions WHERE token_hash = $1`, [token])).toHaveLength(0);
    // German on request.
    expect((await org.owner.get('/console/test?lang=de')).text).toContain('Übersicht');
  });

  it('a used link cannot be used again, and an unknown one is a 404 page', async () => {
    const email = `once-${Date.now()}@example.com`;
    const org = await consoleOrg();
    const res = await runCli(['member:invite', '--org', org.organizationId, '--email', email, '--role', 'analyst'], sharedCliEnv());
    expect(res.code).toBe(0);
    const link = JSON.parse(res.stdout);
    expect(link).toMatchObject({ organization_id: org.organizationId, email, role: 'analyst', kind: 'invite' });
    const client = new ConsoleClient();
    expect((await client.setPassword(link.url, PASSWORD)).status).toBe(200);
    expect((await client.get(new URL(link.url).pathname)).status).toBe(404);
    expect((await client.get('/console/link/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await client.signIn(email, PASSWORD)).status).toBe(303);

    const reset = JSON.parse((await runCli(['member:reset', '--email', email, '--org', org.organizationId], sharedCliEnv())).stdout);
    expect(reset.kind).toBe('reset');
    await new ConsoleClient().setPassword(reset.url, 'another long password');
    // The reset ended the member's sessions; the old password no longer works, the new one does.
    expect((await client.get('/console/test')).status).toBe(303);
    expect((await new ConsoleClient().signIn(email, PASSWORD)).status).toBe(401);
    expect((await new ConsoleClient().signIn(email, 'another long password')).status).toBe(303);
  });

  it('refuses a wrong password, locks after five failures for 15 minutes, and the lock ends by itself', async () => {
    const org = await consoleOrg();
    const client = new ConsoleClient();
    const wrong = await client.signIn(org.ownerEmail, 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The email or password is wrong.');
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('console_session='))).toBe(false);
    for (let i = 0; i < 4; i++) await client.signIn(org.ownerEmail, `wrong ${i} wrong wrong`);
    const locked = await client.signIn(org.ownerEmail, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('locked for 15 minutes');
    const [row] = await sql<{ locked_until: Date }>(`SELECT locked_until FROM console_members WHERE email = $1`, [org.ownerEmail]);
    const minutes = (row.locked_until.getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15.1);
    // Fifteen minutes later (the lock's end moved into the past), the right password works again.
    await sql(`UPDATE console_members SET locked_until = now() - interval '1 second' WHERE email = $1`, [org.ownerEmail]);
    expect((await client.signIn(org.ownerEmail, PASSWORD)).status).toBe(303);
  });

  it("an unknown email is refused the same way, and its failures lock it as a member's do (the answers never tell which is a member)", async () => {
    const res = await new ConsoleClient().signIn(`nobody-${Date.now()}@example.com`, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.text).toContain('The email or password is wrong.');

    const org = await consoleOrg();
    const unknown = `nobody-else-${Date.now()}@example.com`;
    const answers = async (email: string) => {
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await new ConsoleClient().signIn(email, i < 5 ? `wrong ${i} wrong wrong` : PASSWORD);
        const words = r.text.includes('locked for 15 minutes') ? 'locked' : r.text.includes('The email or password is wrong.') ? 'wrong' : 'other';
        seen.push(`${r.status} ${words} ${r.headers.get('retry-after') ?? '-'}`);
      }
      return seen;
    };
    const member = await answers(org.ownerEmail);
    expect(member.slice(-2)).toEqual(['429 locked 900', '429 locked 900']);
    expect(await answers(unknown)).toEqual(member);
    // Counted under the email's hash, not the email.
    const misses = await sql<{ email_hash: string; failed_attempts: number }>(
      `SELECT email_hash, failed_attempts FROM console_sign_in_misses WHERE email_hash = encode(sha256($1::bytea), 'hex')`,
      [unknown],
    );
    expect(misses).toEqual([{ email_hash: expect.stringMatching(/^[0-9a-f]{64}$/), failed_attempts: 5 }]);
  });

  it('refuses a state change without the session CSRF token, and a sign-in without the form token', async () => {
    const org = await consoleOrg();
    const before = await sql(`SELECT 1 FROM console_members WHERE organization_id = $1`, [org.organizationId]);
    const missing = await org.owner.post('/console/test/members', { email: 'x@example.com', role: 'admin' });
    expect(missing.status).toBe(403);
    const wrong = await org.owner.post('/console/test/members', { _csrf: 'A'.repeat(43), email: 'x@example.com', role: 'admin' });
    expect(wrong.status).toBe(403);
    expect(await sql(`SELECT 1 FROM console_members WHERE organization_id = $1`, [org.organizationId])).toHaveLength(before.length);
    // The htmx header carries it too.
    const page = await org.owner.get('/console/test/members');
    const viaHeader = await org.owner.post(
      '/console/test/members',
      { email: `h-${Date.now()}@example.com`, role: 'support' },
      { 'x-csrf-token': ConsoleClient.csrfOf(page.text) },
    );
    expect(viaHeader.status).toBe(201);
    const signIn = await new ConsoleClient().post('/console/sign-in', { email: org.ownerEmail, password: PASSWORD });
    expect(signIn.status).toBe(403);
  });

  it('ends a session after 12 hours idle and after 7 days in all, and on sign-out everywhere', async () => {
    const org = await consoleOrg();
    const second = new ConsoleClient();
    await second.signIn(org.ownerEmail, PASSWORD);
    const [member] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE email = $1`, [org.ownerEmail]);
    await sql(`UPDATE console_sessions SET last_seen_at = now() - interval '12 hours 1 minute' WHERE member_id = $1`, [member.id]);
    const idle = await org.owner.get('/console/test');
    expect(idle.status).toBe(303);
    expect(idle.location).toBe('/console/sign-in');

    const a = new ConsoleClient();
    const b = new ConsoleClient();
    await a.signIn(org.ownerEmail, PASSWORD);
    await b.signIn(org.ownerEmail, PASSWORD);
    await sql(
      `UPDATE console_sessions SET created_at = now() - interval '7 days 1 minute' WHERE member_id = $1 AND last_seen_at > now() - interval '1 minute'`,
      [member.id],
    );
    expect((await a.get('/console/test')).status).toBe(303);

    const c = new ConsoleClient();
    const d = new ConsoleClient();
    await c.signIn(org.ownerEmail, PASSWORD);
    await d.signIn(org.ownerEmail, PASSWORD);
    expect((await d.get('/console/test')).status).toBe(200);
    expect((await c.submit('/console/test', '/console/sign-out-everywhere')).status).toBe(303);
    expect((await d.get('/console/test')).status).toBe(303);
  });

  it('keeps an owner: the last owner can neither be demoted nor removed; with a second owner they can', async () => {
    const org = await consoleOrg();
    const [me] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE email = $1`, [org.ownerEmail]);
    const demote = await org.owner.submit('/console/test/members', `/console/test/members/${me.id}/role`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('the last owner cannot leave or be demoted');
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${me.id}/remove`)).status).toBe(409);
    expect((await sql<{ role: string }>(`SELECT role FROM console_members WHERE id = $1`, [me.id]))[0].role).toBe('owner');

    const other = await addMember(org.owner, 'owner');
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${me.id}/role`, { role: 'admin' })).status).toBe(200);
    // Now the other one is the last owner, and an admin cannot touch an owner at all.
    expect((await other.client.submit('/console/test/members', `/console/test/members/${other.id}/role`, { role: 'developer' })).status).toBe(409);
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${other.id}/remove`)).status).toBe(403);
  });
});

describe('management console: owners who can sign in', () => {
  it('an invitation to be an owner, not yet accepted, is no owner: the only owner who can sign in can neither leave nor be demoted', async () => {
    const org = await consoleOrg();
    const [me] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE email = $1`, [org.ownerEmail]);
    const email = `pending-owner-${Date.now()}@example.com`;
    expect((await org.owner.submit('/console/test/members', '/console/test/members', { email, role: 'owner' })).status).toBe(201);
    const demote = await org.owner.submit('/console/test/members', `/console/test/members/${me.id}/role`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('the last owner cannot leave or be demoted');
    const leave = await org.owner.submit('/console/test/members', `/console/test/members/${me.id}/remove`);
    expect(leave.status).toBe(409);
    expect(leave.text).toContain('the last owner cannot leave or be demoted');
    expect((await sql<{ role: string }>(`SELECT role FROM console_members WHERE id = $1`, [me.id]))[0].role).toBe('owner');
    expect((await org.owner.get('/console/test')).status).toBe(200);

    // The invitation itself may be changed or withdrawn: it takes no owner away.
    const [pending] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, email]);
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${pending.id}/role`, { role: 'admin' })).status).toBe(200);
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${pending.id}/remove`)).status).toBe(200);
  });

  it("an admin's change never touches an owner, even one made an owner after the admin's page read the member", async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    const target = await addMember(org.owner, 'developer');
    // The admin's change has read a developer and waits for the members' lock, which an owner's promotion holds.
    const page = await admin.get('/console/test/members');
    const answer = await whileWaiting(
      (c) => c.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [org.organizationId]).then(() => undefined),
      () => admin.post(`/console/test/members/${target.id}/role`, { _csrf: ConsoleClient.csrfOf(page.text), role: 'developer' }),
      '%pg_advisory_xact_lock%',
      (c) => c.query(`UPDATE console_members SET role = 'owner' WHERE id = $1`, [target.id]).then(() => undefined),
    );
    expect(answer.status).toBe(403);
    expect((await sql<{ role: string }>(`SELECT role FROM console_members WHERE id = $1`, [target.id]))[0].role).toBe('owner');
  });

  it("an admin's password reset link is refused for a member made an owner after the admin's page read them", async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    const target = await addMember(org.owner, 'developer');
    const page = await admin.get('/console/test/members');
    const answer = await whileWaiting(
      (c) => c.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [org.organizationId]).then(() => undefined),
      () => admin.post(`/console/test/members/${target.id}/reset`, { _csrf: ConsoleClient.csrfOf(page.text) }),
      '%pg_advisory_xact_lock%',
      (c) => c.query(`UPDATE console_members SET role = 'owner' WHERE id = $1`, [target.id]).then(() => undefined),
    );
    expect(answer.status).toBe(403);
    // No link that would set an owner's password.
    expect(await sql(`SELECT 1 FROM console_links WHERE member_id = $1 AND used_at IS NULL`, [target.id])).toEqual([]);
  });

  it("an admin's new invitation is a link for the role the admin gave, also when the email's member is made an owner at that moment", async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    const email = `race-${process.pid}-${Date.now()}@example.com`;
    const page = await admin.get('/console/test/members');
    // The invitation waits for the members' lock, which an owner's promotion of that email's member holds.
    const answer = await whileWaiting(
      (c) => c.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [org.organizationId]).then(() => undefined),
      () => admin.post('/console/test/members', { _csrf: ConsoleClient.csrfOf(page.text), email, role: 'developer' }),
      '%pg_advisory_xact_lock%',
      (c) => c.query(`UPDATE console_members SET role = 'owner' WHERE organization_id = $1 AND email = $2`, [org.organizationId, email]).then(() => undefined),
    );
    expect(answer.status).toBe(201);
    // The member is the developer the admin invited (there was none to promote yet), with the one live link.
    const members = await sql<{ role: string; links: number }>(
      `SELECT m.role, (SELECT count(*)::int FROM console_links l WHERE l.member_id = m.id AND l.used_at IS NULL) AS links
         FROM console_members m WHERE m.organization_id = $1 AND m.email = $2`,
      [org.organizationId, email],
    );
    expect(members).toEqual([{ role: 'developer', links: 1 }]);
  });

  it('an invitation with a role that is none of the five is a 400 naming the role; a role that may not invite gets 403 all the same', async () => {
    const org = await consoleOrg();
    const bad = await org.owner.submit('/console/test/members', '/console/test/members', {
      email: `r-${process.pid}-${Date.now()}@example.com`,
      role: 'superuser',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('owner, admin, developer, analyst, support');
    expect(await sql(`SELECT 1 FROM console_members WHERE organization_id = $1 AND email LIKE 'r-%'`, [org.organizationId])).toEqual([]);
    const analyst = (await addMember(org.owner, 'analyst')).client;
    const refused = await analyst.submit('/console/test/members', '/console/test/members', {
      email: `r2-${process.pid}-${Date.now()}@example.com`,
      role: 'superuser',
    });
    expect(refused.status).toBe(403);
  });
});

describe('management console: odd input is a 4xx, never a 500', () => {
  it('reads a stray % in another cookie of the host as sent, and still signs in', async () => {
    const browser = new ConsoleClient();
    browser.jar.set('other_app', 'half%');
    const form = await browser.get('/console/sign-in');
    expect(form.status).toBe(200);
    const org = await consoleOrg();
    const signed = await browser.post('/console/sign-in', { _csrf: ConsoleClient.csrfOf(form.text), email: org.ownerEmail, password: PASSWORD });
    expect(signed.status).toBe(303);
  });

  it('refuses the NUL character in a form field or a page query, naming the field, before anything reaches the database', async () => {
    const browser = new ConsoleClient();
    const form = await browser.get('/console/sign-in');
    const nul = await browser.post('/console/sign-in', { _csrf: ConsoleClient.csrfOf(form.text), email: 'a\u0000@example.com', password: 'x' });
    expect(nul.status).toBe(400);
    expect(JSON.parse(nul.text)).toMatchObject({ code: 'validation_failed', validator: { email: expect.stringContaining('NUL') } });
    const org = await consoleOrg();
    const query = await org.owner.get('/console/test/invoices?customer_email=%00');
    expect(query.status).toBe(400);
    expect(JSON.parse(query.text).validator).toHaveProperty('customer_email');
    expect((await org.owner.get('/console/test/invoices?customer_email=a%40example.com')).status).toBe(200);
  });

  it('refuses a multipart body and JSON that is not an object on a form route, creating nothing', async () => {
    const org = await consoleOrg();
    const page = await org.owner.get('/console/test/api-keys');
    const csrf = ConsoleClient.csrfOf(page.text);
    const keys = async () => (await sql(`SELECT 1 FROM api_keys WHERE organization_id = $1`, [org.organizationId])).length;
    const before = await keys();
    const cookie = [...org.owner.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const send = (contentType: string, body: string) =>
      fetch(`${baseUrl()}/console/test/api-keys`, {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrf, 'content-type': contentType },
        body,
        redirect: 'manual',
      });
    const multipart = await send('multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="access"\r\n\r\nfull\r\n--b--\r\n');
    expect(multipart.status).toBe(400);
    expect(((await multipart.json()) as { code: string }).code).toBe('unsupported_content_type');
    for (const json of ['null', '[]', '7']) {
      const res = await send('application/json', json);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('malformed_body');
    }
    expect(await keys()).toBe(before);
  });
});

describe('management console: invitations refused with a message', () => {
  it('refuses an email longer than 254 characters naming the field, and two invitations of one email at once make one member', async () => {
    const org = await consoleOrg();
    const long = `${'a'.repeat(64)}@${'b'.repeat(186)}.com`;
    expect(long).toHaveLength(255);
    const refused = await org.owner.submit('/console/test/members', '/console/test/members', { email: long, role: 'support' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('email must be at most 254 characters');
    expect(await sql(`SELECT 1 FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, long])).toHaveLength(0);
    const longest = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
    expect((await org.owner.submit('/console/test/members', '/console/test/members', { email: longest, role: 'support' })).status).toBe(201);

    // The same email invited by someone else at the same moment: the invitation that did not insert the member says it is one.
    const email = `twice-${Date.now()}@example.com`;
    const page = await org.owner.get('/console/test/members');
    const second = await whileWaiting(
      (c) =>
        c
          .query(`INSERT INTO console_members (id, organization_id, email, role) VALUES ($1, $2, $3, 'support')`, [
            `member_race-${Date.now()}`,
            org.organizationId,
            email,
          ])
          .then(() => undefined),
      () => org.owner.post('/console/test/members', { _csrf: ConsoleClient.csrfOf(page.text), email, role: 'support' }),
      'INSERT INTO console_members%',
      async () => undefined,
    );
    expect(second.status).toBe(409);
    expect(second.text).toContain('This email is already a member.');
    expect(await sql(`SELECT 1 FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, email])).toHaveLength(1);
  });
});

describe('management console: the role table on the server', () => {
  it('analyst: reads pages, may not create keys or invite, and the forms are not on the page', async () => {
    const org = await consoleOrg();
    const analyst = (await addMember(org.owner, 'analyst')).client;
    const keys = await analyst.get('/console/test/api-keys');
    expect(keys.status).toBe(200);
    expect(keys.text).not.toContain('action="/console/test/api-keys"');
    expect(keys.text).not.toContain('/revoke"');
    expect((await analyst.submit('/console/test/api-keys', '/console/test/api-keys', { access: 'read_only' })).status).toBe(403);
    const members = await analyst.get('/console/test/members');
    expect(members.text).not.toContain('action="/console/test/members"');
    expect((await analyst.submit('/console/test/members', '/console/test/members', { email: 'a@example.com', role: 'support' })).status).toBe(403);
    expect((await analyst.get('/console/test/audit')).status).toBe(403);
    expect((await analyst.get('/console/test')).text).not.toContain('href="/console/test/audit"');
  });

  it('developer: any key in test mode, only read-only keys in live mode; no members', async () => {
    const org = await consoleOrg();
    const dev = (await addMember(org.owner, 'developer')).client;
    const full = await dev.submit('/console/test/api-keys', '/console/test/api-keys', { access: 'full' });
    expect(full.status).toBe(201);
    const testKey = /id="new-key">([^<]+)</.exec(full.text)![1];
    expect(expectSuccess(await new Api(testKey).get('/auth/debug_token'))).toMatchObject({ mode: 'test', read_only: false });

    const liveFullPage = await dev.get('/console/live/api-keys');
    expect(liveFullPage.text).not.toContain('value="full"');
    expect((await dev.submit('/console/live/api-keys', '/console/live/api-keys', { access: 'full' })).status).toBe(403);
    const liveRo = await dev.submit('/console/live/api-keys', '/console/live/api-keys', { access: 'read_only' });
    expect(liveRo.status).toBe(201);
    const liveKey = /id="new-key">([^<]+)</.exec(liveRo.text)![1];
    expect(expectSuccess(await new Api(liveKey).get('/auth/debug_token'))).toMatchObject({ mode: 'live', read_only: true });
    // The secret is shown once: the list shows only prefixes afterwards.
    const again = await dev.get('/console/live/api-keys');
    expect(again.text).not.toContain(liveKey);
    expect(again.text).toContain(liveKey.slice(0, 14));

    // The organization's full live key cannot be revoked by a developer.
    const [liveFull] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = 'live' AND read_only = false`, [
      org.organizationId,
    ]);
    expect((await dev.submit('/console/live/api-keys', `/console/live/api-keys/${liveFull.id}/revoke`)).status).toBe(403);
    expect((await dev.submit('/console/test/members', '/console/test/members', { email: 'b@example.com', role: 'support' })).status).toBe(403);
  });

  it('admin: invites up to admin, never an owner; reads the audit log', async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    expect((await admin.submit('/console/test/members', '/console/test/members', { email: `o-${Date.now()}@example.com`, role: 'owner' })).status).toBe(403);
    const page = await admin.get('/console/test/members');
    expect(page.text).not.toContain('<option value="owner"');
    await addMember(admin, 'admin');
    const audit = await admin.get('/console/test/audit');
    expect(audit.status).toBe(200);
    expect(audit.text).toContain('member.invite');
  });

  it("admin: cannot renew an owner's pending invitation (its link would sign in as an owner); an owner can", async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    const email = `pending-owner-${Date.now()}@example.com`;
    expect((await org.owner.submit('/console/test/members', '/console/test/members', { email, role: 'owner' })).status).toBe(201);
    const [pending] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, email]);
    const links = async () => (await sql(`SELECT 1 FROM console_links WHERE member_id = $1`, [pending.id])).length;
    const roleOf = async () => (await sql<{ role: string }>(`SELECT role FROM console_members WHERE id = $1`, [pending.id]))[0].role;
    expect(await links()).toBe(1);

    // The admin invites the same email as an admin: refused, no new link, and the invitation stays an owner's.
    const takeover = await admin.submit('/console/test/members', '/console/test/members', { email, role: 'admin' });
    expect(takeover.status).toBe(403);
    expect(takeover.text).toContain('Your role does not allow this.');
    expect(takeover.text).not.toContain('one-time-link');
    expect((await admin.submit('/console/test/members', `/console/test/members/${pending.id}/reset`)).status).toBe(403);
    expect(await links()).toBe(1);
    expect(await roleOf()).toBe('owner');

    // The owner renews it: a new link, which signs the invited owner in.
    const renewed = await org.owner.submit('/console/test/members', '/console/test/members', { email, role: 'owner' });
    expect(renewed.status).toBe(201);
    // It replaces the first: one live link a member.
    expect(await links()).toBe(1);
    const invitee = new ConsoleClient();
    expect((await invitee.setPassword(/id="one-time-link">([^<]+)</.exec(renewed.text)![1], PASSWORD)).status).toBe(200);
    expect(await roleOf()).toBe('owner');

    // An admin renews a pending developer's invitation as an admin: allowed, and the role asked for is given.
    const devEmail = `pending-dev-${Date.now()}@example.com`;
    expect((await org.owner.submit('/console/test/members', '/console/test/members', { email: devEmail, role: 'developer' })).status).toBe(201);
    expect((await admin.submit('/console/test/members', '/console/test/members', { email: devEmail, role: 'admin' })).status).toBe(201);
    const [dev] = await sql<{ role: string }>(`SELECT role FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, devEmail]);
    expect(dev.role).toBe('admin');
  });

  it('withdraws an unused link when the member gets another, changes role, or uses one: an old link never signs in with a new role', async () => {
    const org = await consoleOrg();
    const admin = (await addMember(org.owner, 'admin')).client;
    const linkOf = (page: { text: string }) => /id="one-time-link">([^<]+)</.exec(page.text)![1];
    /** What opening the link answers: 200 with its form while it is live, 404 once withdrawn. */
    const opened = async (link: string) => (await new ConsoleClient().get(new URL(link, 'http://x').pathname)).status;
    const memberId = async (email: string) =>
      (await sql<{ id: string }>(`SELECT id FROM console_members WHERE organization_id = $1 AND email = $2`, [org.organizationId, email]))[0].id;

    // An admin invites a developer; the owner then renews the invitation as an owner's. The admin's link is void.
    const bob = `bob-${Date.now()}@example.com`;
    const adminsLink = linkOf(await admin.submit('/console/test/members', '/console/test/members', { email: bob, role: 'developer' }));
    const ownersLink = linkOf(await org.owner.submit('/console/test/members', '/console/test/members', { email: bob, role: 'owner' }));
    expect(await opened(adminsLink)).toBe(404);
    expect(
      (await sql<{ password_hash: string | null }>(`SELECT password_hash FROM console_members WHERE id = $1`, [await memberId(bob)]))[0].password_hash,
    ).toBeNull();
    expect((await new ConsoleClient().setPassword(ownersLink, PASSWORD)).status).toBe(200);

    // An admin invites a developer, whom the owner makes an owner before they accept: the admin's link is void.
    const carol = `carol-${Date.now()}@example.com`;
    const carolsLink = linkOf(await admin.submit('/console/test/members', '/console/test/members', { email: carol, role: 'developer' }));
    expect((await org.owner.submit('/console/test/members', `/console/test/members/${await memberId(carol)}/role`, { role: 'owner' })).status).toBe(200);
    expect(await opened(carolsLink)).toBe(404);

    // Two password resets of one member: using the second voids the first (it would otherwise reset the password again).
    const dev = await addMember(org.owner, 'developer');
    const first = linkOf(await admin.submit('/console/test/members', `/console/test/members/${dev.id}/reset`));
    const second = linkOf(await admin.submit('/console/test/members', `/console/test/members/${dev.id}/reset`));
    expect((await new ConsoleClient().setPassword(second, `${PASSWORD}-2`)).status).toBe(200);
    expect(await opened(first)).toBe(404);
  });

  it('support: no keys, no members', async () => {
    const org = await consoleOrg();
    const support = (await addMember(org.owner, 'support')).client;
    expect((await support.submit('/console/test/api-keys', '/console/test/api-keys', { access: 'read_only' })).status).toBe(403);
    expect((await support.submit('/console/test/members', '/console/test/members', { email: 'c@example.com', role: 'support' })).status).toBe(403);
  });

  it("answers 404 for another organization's members, keys and invoices", async () => {
    const a = await consoleOrg();
    const b = await consoleOrg();
    const [aOwner] = await sql<{ id: string }>(`SELECT id FROM console_members WHERE email = $1`, [a.ownerEmail]);
    expect((await b.owner.submit('/console/test/members', `/console/test/members/${aOwner.id}/remove`)).status).toBe(404);
    expect((await b.owner.submit('/console/test/members', `/console/test/members/${aOwner.id}/reset`)).status).toBe(404);
    const [aKey] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND mode = 'test'`, [a.organizationId]);
    expect((await b.owner.submit('/console/test/api-keys', `/console/test/api-keys/${aKey.id}/revoke`)).status).toBe(404);
    const id = await createInvoice(new Api(a.testKey));
    expect((await a.owner.get(`/console/test/invoices/${id}`)).status).toBe(200);
    expect((await b.owner.get(`/console/test/invoices/${id}`)).status).toBe(404);
    // And the other mode of the same organization does not show it either.
    expect((await a.owner.get(`/console/live/invoices/${id}`)).status).toBe(404);
    const list = await a.owner.get('/console/test/invoices');
    expect(list.text).toContain(id);
    expect((await a.owner.get('/console/live/invoices')).text).not.toContain(id);
  });
});

describe('GET /audit_log', () => {
  it('lists console actions for a full key, refuses a read-only key', async () => {
    const org = await consoleOrg();
    await org.owner.submit('/console/test/api-keys', '/console/test/api-keys', { access: 'read_only' });
    const res = expectSuccess(await new Api(org.liveKey).get('/audit_log?limit=10'));
    const actions = res.items.map((e: { action: string }) => e.action);
    expect(actions).toContain('api_key.create_read_only');
    expect(actions).toContain('session.sign_in');
    // A test key reads the test mode's entries only: not the organization-wide sign-in.
    const fromTest = expectSuccess(await new Api(org.testKey).get('/audit_log?limit=10')).items;
    expect(fromTest.map((e: { action: string }) => e.action)).toEqual(['api_key.create_read_only']);
    expect(res.items[0]).toMatchObject({ actor_type: 'member', mode: 'test' });
    const [ro] = await sql<{ id: string }>(`SELECT id FROM api_keys WHERE organization_id = $1 AND read_only`, [org.organizationId]);
    expect(ro).toBeDefined();
    const readOnly = await runCli(['key:create', '--org', org.organizationId, '--mode', 'test', '--read-only'], sharedCliEnv());
    const roKey = JSON.parse(readOnly.stdout).key;
    expect((await new Api(roKey).get('/audit_log')).status).toBe(403);
    expect((await new Api(org.testKey).get('/audit_log?limit=0')).status).toBe(400);
  });
});
