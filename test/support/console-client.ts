import { Client } from 'pg';
import { baseUrl, testDatabaseUrl } from './api';
import { runCli, sharedCliEnv } from './server';

export interface PageResponse {
  status: number;
  text: string;
  headers: Headers;
  location: string | null;
}

/** A browser-like client of the console: keeps its cookies, never follows redirects (tests look at them). */
export class ConsoleClient {
  readonly jar = new Map<string, string>();

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
    const h: Record<string, string> = { ...headers };
    if (this.jar.size) h.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      h['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(`${baseUrl()}${path}`, { method, headers: h, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (!value || attrs.some((a) => /^\s*Max-Age=0$/i.test(a))) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: res.status, text: await res.text(), headers: res.headers, location: res.headers.get('location') };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string> = {}, headers?: Record<string, string>) {
    return this.request('POST', path, form, headers);
  }

  /** The value of the first hidden `_csrf` field of the page. */
  static csrfOf(page: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(page);
    if (!m) throw new Error('no CSRF field on the page');
    return m[1];
  }

  /** Posts a form of a signed-in page, with the session's CSRF token read from that page. */
  async submit(pagePath: string, action: string, form: Record<string, string> = {}): Promise<PageResponse> {
    const page = await this.get(pagePath);
    if (page.status !== 200) throw new Error(`GET ${pagePath}: ${page.status}`);
    return this.post(action, { _csrf: ConsoleClient.csrfOf(page.text), ...form });
  }

  async signIn(email: string, password: string): Promise<PageResponse> {
    const form = await this.get('/console/sign-in');
    return this.post('/console/sign-in', { _csrf: ConsoleClient.csrfOf(form.text), email, password });
  }

  /** Opens a one-time link and sets the password (the link's path, whatever host it names). */
  async setPassword(link: string, password: string): Promise<PageResponse> {
    const path = new URL(link, 'http://x').pathname;
    const form = await this.get(path);
    if (form.status !== 200) throw new Error(`GET ${path}: ${form.status}`);
    return this.post(path, { _csrf: ConsoleClient.csrfOf(form.text), password });
  }
}

export const PASSWORD = 'correct horse battery staple';

let counter = 0;

export interface ConsoleOrg {
  organizationId: string;
  testKey: string;
  liveKey: string;
  ownerEmail: string;
  owner: ConsoleClient;
}

/** An organization made by `cli org:create --owner-email`, its owner signed in. */
export async function consoleOrg(): Promise<ConsoleOrg> {
  const ownerEmail = `owner-${process.pid}-${++counter}-${Date.now()}@example.com`;
  const res = await runCli(['org:create', '--name', `Console ${counter}`, '--owner-email', ownerEmail], sharedCliEnv());
  if (res.code !== 0) throw new Error(`org:create: ${res.stderr}`);
  const out = JSON.parse(res.stdout);
  const owner = new ConsoleClient();
  const set = await owner.setPassword(out.sign_in_url, PASSWORD);
  if (set.status !== 200) throw new Error(`set password: ${set.status} ${set.text.slice(0, 600)}`);
  const signed = await owner.signIn(ownerEmail, PASSWORD);
  if (signed.status !== 303) throw new Error(`sign in: ${signed.status} ${signed.text}`);
  return { organizationId: out.organization_id, testKey: out.test_key, liveKey: out.live_key, ownerEmail, owner };
}

/** Invites a member of `role` through the console (as `by`), who sets a password and signs in. */
export async function addMember(by: ConsoleClient, role: string): Promise<{ client: ConsoleClient; email: string; id: string }> {
  const email = `${role}-${process.pid}-${++counter}-${Date.now()}@example.com`;
  const invited = await by.submit('/console/test/members', '/console/test/members', { email, role, name: '' });
  if (invited.status !== 201) throw new Error(`invite: ${invited.status}`);
  const link = /id="one-time-link">([^<]+)</.exec(invited.text)![1];
  const id = new RegExp(`data-member="(member_[^"]+)">\\s*<td>${email.replace(/[.+]/g, '\\$&')}`).exec(invited.text)![1];
  const client = new ConsoleClient();
  await client.setPassword(link, PASSWORD);
  const signed = await client.signIn(email, PASSWORD);
  if (signed.status !== 303) throw new Error(`sign in: ${signed.status}`);
  return { client, email, id };
}

/** Runs SQL on the test database (to age a session or a lockout: time the test cannot wait for). */
export async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}
