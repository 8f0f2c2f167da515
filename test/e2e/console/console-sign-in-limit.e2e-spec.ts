import { PASSWORD } from '../../support/console-client';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
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
