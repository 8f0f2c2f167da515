import { embeddedUrl } from './embedded';
import { createDatabase, dropDatabase } from './pg';
import { ADMIN_TOKEN } from './server';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, for malformed-body tests. */
  rawBody?: string | Buffer | FormData;
  headers?: Record<string, string>;
  /** Authorization header value; null sends none. Defaults to the client's key. */
  authorization?: string | null;
}

export function baseUrl(): string {
  const url = process.env.TEST_BASE_URL;
  if (!url) throw new Error('TEST_BASE_URL is not set: run the tests through jest (global setup starts the service)');
  return url;
}

/** The database the shared test service uses (the embedded one's address when no server was found). */
export function testDatabaseUrl(): string {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  return embeddedUrl(process.env.TEST_DATA_DIR ?? '');
}

/** A small HTTP client that calls the service the way a merchant's code does. */
export class Api {
  constructor(
    readonly key: string | null,
    readonly base: string = baseUrl(),
  ) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const authorization = options.authorization === undefined ? this.key : options.authorization;
    if (authorization) headers.authorization = authorization;
    let body: string | Buffer | FormData | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body: body as RequestInit['body'] });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

export const anonymous = () => new Api(null);

export const admin = () => ({
  post: (path: string, body: unknown) => new Api(null).post(path, body, { headers: { 'x-admin-token': ADMIN_TOKEN } }),
  get: (path: string) => new Api(null).get(path, { headers: { 'x-admin-token': ADMIN_TOKEN } }),
});

/**
 * A database of its own on the tests' PostgreSQL server (the embedded one when there is none), for a
 * test that starts its own service or connections on it; `drop()` removes it.
 */
export async function ownTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_PG_SERVER_URL || testDatabaseUrl();
  const url = await createDatabase(server);
  return { url, drop: () => dropDatabase(server, url) };
}
