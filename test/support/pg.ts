import { Client } from 'pg';
import { runCli } from './server';

/**
 * Where test databases are made: DATABASE_URL when set, else PostgreSQL on 127.0.0.1:5432 when
 * it answers, else null (the suite then runs on the embedded database in a temporary folder).
 * TEST_EMBEDDED=1 forces the embedded database even when a server answers.
 */
export async function findPostgresServer(): Promise<string | null> {
  if (process.env.TEST_EMBEDDED === '1') return null;
  const candidates = [process.env.DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/postgres'].filter(Boolean) as string[];
  for (const url of candidates) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch {
      // try the next one
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return null;
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * The migrated database fresh test databases are copied from (its name; set by global-setup.ts before
 * the workers start, empty when there is none, e.g. on the embedded database).
 */
export const TEMPLATE_ENV = 'TEST_TEMPLATE_DATABASE';

function newName(prefix: string): string {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  if (!/test/.test(name)) throw new Error('test databases must have "test" in their name');
  return name;
}

/**
 * A fresh test database. With a template (TEST_TEMPLATE_DATABASE) it is a copy of it, so it has every
 * migration already and a service started on it applies none (a copy takes about a second, running the
 * migrations about ten); `{ empty: true }` asks for a database without them, for a test of the
 * migrations themselves.
 */
export async function createDatabase(serverUrl: string, prefix = 'ipa_test', options: { empty?: boolean } = {}): Promise<string> {
  const name = newName(prefix);
  const template = options.empty ? '' : (process.env[TEMPLATE_ENV] ?? '');
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    if (!template) await client.query(`CREATE DATABASE "${name}"`);
    else {
      // The template takes no connections (ALLOW_CONNECTIONS false), so a copy is refused only while a
      // session that was on it is still ending: try again for a little while.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== '55006' || attempt >= 20) throw e;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    }
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

/**
 * Makes the template every test database is copied from: a new database, migrated once with the built
 * CLI (`dist/src/cli/main.js migrate`), then closed to connections so that nothing can hold it open
 * while a copy is made (PostgreSQL refuses to copy a database others are connected to).
 */
export async function createTemplateDatabase(serverUrl: string): Promise<string> {
  const url = await createDatabase(serverUrl, 'ipa_test_template', { empty: true });
  const name = new URL(url).pathname.slice(1);
  const { code, stdout, stderr } = await runCli(['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
  const applied = code === 0 ? ((JSON.parse(stdout) as { applied?: string[] }).applied ?? []) : [];
  if (!applied.length) {
    await dropDatabase(serverUrl, url);
    throw new Error(`could not migrate the template database (exit ${code}):\n${stderr}${stdout}`);
  }
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
  } finally {
    await client.end();
  }
  return name;
}

export async function dropDatabase(serverUrl: string, databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!/test/.test(name)) throw new Error(`refusing to drop ${name}: not a test database`);
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Drops the template made by createTemplateDatabase (global-teardown.ts). */
export async function dropTemplateDatabase(serverUrl: string, name: string): Promise<void> {
  await dropDatabase(serverUrl, withDatabase(serverUrl, name));
}

/** A direct connection for assertions on stored state (never for setting up data the API can make). */
export async function withClient<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
