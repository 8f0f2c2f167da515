import { PASSWORD } from '../../support/console-client';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { untilStatementActive, withClient } from '../../support/pg';
import { runCli } from '../../support/server';

/** A cookie-keeping form client of one service (the shared ConsoleClient talks to the shared service). */
class FormClient {
  private readonly jar = new Map<string, string>();
  constructor(private readonly base: string) {}

  async send(method: string, path: string, form?: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }> {
    const headers: Record<string, string> = { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.base}${path}`, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0];
      const i = pair.indexOf('=');
      this.jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** Posts the form at `path` with the CSRF token its page carries. */
  async submit(path: string, form: Record<string, string>) {
    const page = await this.send('GET', path);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    return this.send('POST', path, { _csrf: csrf, ...form });
  }

  hasSession(): boolean {
    return !!this.jar.get('console_session');
  }
}

/**
 * Besides each member's lockout, sign-in failures are counted per client address
 * (RATE_LIMIT_AUTH_FAILURES a minute, the budget failed API keys draw from): past it, the address's
 * sign-ins are refused for the rest of the minute, a right password included, whichever emails it tried.
 */
describe('console sign-in: a limit per client address', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ RATE_LIMIT_AUTH_FAILURES: '3' });
  });
  afterAll(async () => service?.stop());

  it('refuses sign-in from an address past its failures (429, Retry-After), for a member that never failed', async () => {
    const email = `limited-${Date.now()}@example.com`;
    const created = await runCli(['org:create', '--name', 'Limited', '--owner-email', email], service.cliEnv);
    expect(created.code).toBe(0);
    const link = new URL(JSON.parse(created.stdout).sign_in_url as string).pathname;
    const client = new FormClient(service.server.baseUrl);
    expect((await client.submit(link, { password: PASSWORD })).status).toBe(200);

    // The budget is counted in fixed minutes: start early in one, so the failures and the refusal share it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    // Three failures with three different emails: no single member reaches its own lockout.
    for (let i = 0; i < 3; i++) {
      expect((await client.submit('/console/sign-in', { email: `guess-${i}@example.com`, password: 'a wrong password here' })).status).toBe(401);
    }
    const refused = await client.submit('/console/sign-in', { email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.text).toContain('Too many failed sign-ins from your network');
    expect(client.hasSession()).toBe(false);
    expect((await client.send('GET', '/console/test')).status).toBe(303);
  });
});

/** A member of a new organization of `service`, with PASSWORD set through its link. */
async function memberOf(service: IsolatedService, name: string): Promise<{ email: string; organizationId: string }> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@example.com`;
  const created = await runCli(['org:create', '--name', name, '--owner-email', email], service.cliEnv);
  expect(created.code).toBe(0);
  const out = JSON.parse(created.stdout);
  expect((await new FormClient(service.server.baseUrl).submit(new URL(out.sign_in_url as string).pathname, { password: PASSWORD })).status).toBe(200);
  return { email, organizationId: out.organization_id };
}

/** `count` sign-ins sent at once by one client (one sign-in form's token), answered in any order: their statuses, sorted. */
async function signInsAtOnce(client: FormClient, forms: Array<{ email: string; password: string }>): Promise<number[]> {
  const page = await client.send('GET', '/console/sign-in');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  const answers = await Promise.all(forms.map((f) => client.send('POST', '/console/sign-in', { _csrf: csrf, ...f })));
  return answers.map((a) => a.status).sort();
}

describe('console sign-in: attempts sent at once', () => {
  let limited: IsolatedService;
  let unlimited: IsolatedService;
  beforeAll(async () => {
    [limited, unlimited] = await Promise.all([startIsolatedService({ RATE_LIMIT_AUTH_FAILURES: '3' }), startIsolatedService({ RATE_LIMIT_ENABLED: 'false' })]);
  });
  afterAll(async () => {
    await limited?.stop();
    await unlimited?.stop();
  });

  it("are checked no more than the address's budget allows: each takes its place before its password is checked", async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const guesses = Array.from({ length: 8 }, (_, i) => ({ email: `nobody-${i}@example.com`, password: 'a wrong password here' }));
    expect(await signInsAtOnce(new FormClient(limited.server.baseUrl), guesses)).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  });

  it("check a member's password no more than its five attempts, and the sixth at once is refused as locked", async () => {
    const { email } = await memberOf(unlimited, 'Guessed');
    const guesses = Array.from({ length: 12 }, (_, i) => ({ email, password: `wrong guess number ${i}` }));
    const statuses = await signInsAtOnce(new FormClient(unlimited.server.baseUrl), guesses);
    // At most five were checked (401, or 429 once the fifth failure locked the member); the others were refused unchecked.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    const [row] = await withClient(
      unlimited.databaseUrl!,
      async (c) => (await c.query(`SELECT failed_attempts FROM console_members WHERE email = $1`, [email])).rows,
    );
    expect(row.failed_attempts).toBe(5);
    const client = new FormClient(unlimited.server.baseUrl);
    expect((await client.submit('/console/sign-in', { email, password: PASSWORD })).status).toBe(429);
    expect(client.hasSession()).toBe(false);
  });

  it("does not count a sign-in to one organization against the same email's membership of another", async () => {
    const { email } = await memberOf(unlimited, 'First shop');
    // The same person in a second organization, with another password.
    const second = await runCli(['org:create', '--name', 'Second shop', '--owner-email', email], unlimited.cliEnv);
    expect(second.code).toBe(0);
    const link = new URL(JSON.parse(second.stdout).sign_in_url as string).pathname;
    expect((await new FormClient(unlimited.server.baseUrl).submit(link, { password: 'the second shop password' })).status).toBe(200);
    // Six sign-ins to each: the second's password, set last, is tried first; signing in to the first tries it each time.
    const attempts = async () =>
      withClient(
        unlimited.databaseUrl!,
        async (c) => (await c.query(`SELECT failed_attempts, locked_until FROM console_members WHERE email = $1 ORDER BY created_at`, [email])).rows,
      );
    for (let i = 0; i < 6; i++)
      expect((await new FormClient(unlimited.server.baseUrl).submit('/console/sign-in', { email, password: 'the second shop password' })).status).toBe(303);
    for (let i = 0; i < 6; i++)
      expect((await new FormClient(unlimited.server.baseUrl).submit('/console/sign-in', { email, password: PASSWORD })).status).toBe(303);
    expect(await attempts()).toEqual([
      { failed_attempts: 0, locked_until: null },
      { failed_attempts: 0, locked_until: null },
    ]);
  });

  it("tries a password another organization's admin set for the email before the email's own, so a guess is never checked for free", async () => {
    const base = unlimited.server.baseUrl;
    const victim = await memberOf(unlimited, 'Victim shop');
    const other = await memberOf(unlimited, 'Other shop');
    const admin = new FormClient(base);
    expect((await admin.submit('/console/sign-in', { email: other.email, password: PASSWORD })).status).toBe(303);
    // The other organization's owner invites the victim's email and sets that membership's password itself: here
    // to the victim's own password, as the right guess of a series (each reset through a new link).
    const invited = await admin.submit('/console/test/members', { email: victim.email, role: 'developer' });
    expect(invited.status).toBe(201);
    const link = /id="one-time-link">([^<]+)</.exec(invited.text)![1];
    expect((await new FormClient(base).submit(new URL(link).pathname, { password: PASSWORD })).status).toBe(200);
    const sessionOrganization = async () =>
      (
        await withClient(unlimited.databaseUrl!, (c) =>
          c.query(
            `SELECT m.organization_id FROM console_sessions s JOIN console_members m ON m.id = s.member_id
              WHERE m.email = $1 ORDER BY s.created_at DESC LIMIT 1`,
            [victim.email],
          ),
        )
      ).rows[0]?.organization_id as string | undefined;
    // The guess signs in to the membership it was set for: the victim's was not checked, so nothing is learned of it.
    const guessing = new FormClient(base);
    expect((await guessing.submit('/console/sign-in', { email: victim.email, password: PASSWORD })).status).toBe(303);
    expect(await sessionOrganization()).toBe(other.organizationId);
    // A guess that is not the invited membership's password is checked against the victim's too, and counted: the fifth locks.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await new FormClient(base).submit('/console/sign-in', { email: victim.email, password: `wrong guess number ${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const [row] = (
      await withClient(unlimited.databaseUrl!, (c) =>
        c.query(`SELECT failed_attempts FROM console_members WHERE email = $1 AND organization_id = $2`, [victim.email, victim.organizationId]),
      )
    ).rows;
    expect(row.failed_attempts).toBe(5);
  });

  it('a password set through a reset link while a sign-in with the old one is opening its session ends that session too', async () => {
    const { email, organizationId } = await memberOf(unlimited, 'Reset race');
    const reset = JSON.parse((await runCli(['member:reset', '--email', email, '--org', organizationId], unlimited.cliEnv)).stdout);
    const db = unlimited.databaseUrl!;
    // The session's insert is held for a while: the reset comes in between the old password's check and its session.
    await withClient(db, (c) =>
      c.query(`CREATE FUNCTION slow_session() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$;
               CREATE TRIGGER slow_session BEFORE INSERT ON console_sessions FOR EACH ROW EXECUTE FUNCTION slow_session()`),
    );
    try {
      const attacker = new FormClient(unlimited.server.baseUrl);
      const signingIn = attacker.submit('/console/sign-in', { email, password: PASSWORD });
      const held = await untilStatementActive(db, 'INSERT INTO console_sessions%', 200);
      expect(held).toBe(true);
      expect(
        (await new FormClient(unlimited.server.baseUrl).submit(new URL(reset.url as string).pathname, { password: 'a brand new long password' })).status,
      ).toBe(200);
      expect((await signingIn).status).toBe(303);
      // Signed in with the old password a moment before the reset: the reset ended that session as well.
      expect((await attacker.send('GET', '/console/test')).status).toBe(303);
    } finally {
      await withClient(db, (c) => c.query(`DROP TRIGGER slow_session ON console_sessions; DROP FUNCTION slow_session()`));
    }
  });
});
