import { Client } from 'pg';

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

export async function createDatabase(serverUrl: string, prefix = 'ipa_test'): Promise<string> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  if (!/test/.test(name)) throw new Error('test databases must have "test" in their name');
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
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
