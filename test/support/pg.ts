import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { ROOT, runCli } from './server';

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
  const { code, stdout, stderr } = await runCli(['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'warn' }, { process: true });
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

/** Prefix of the migrated templates kept between runs (cachedTemplateDatabase), followed by the migrations' digest. */
const CACHED_TEMPLATE_PREFIX = 'ipa_test_template_m_';

/** Kept templates unused for this long are dropped by the next run's set-up (every run marks the one it uses). */
const CACHED_TEMPLATE_UNUSED_MS = 3 * 24 * 3600 * 1000;

/**
 * What a migrated template's content follows from: the built migrations (dist/migrations with their
 * support/ helpers; they import nothing else but TypeORM), the code that finds and applies them (dist/src/shared/db/data-source.js) and
 * TypeORM's version. Two runs with the same digest would migrate to the same database.
 */
export function migrationsDigest(): string {
  const hash = createHash('sha256');
  const dir = join(ROOT, 'dist', 'migrations');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .sort();
  for (const file of [...files.map((f) => join(dir, f)), join(ROOT, 'dist', 'src', 'shared', 'db', 'data-source.js')]) {
    hash
      .update(`${file.slice(ROOT.length)}\0`)
      .update(readFileSync(file))
      .update('\0');
  }
  hash.update((JSON.parse(readFileSync(join(ROOT, 'node_modules', 'typeorm', 'package.json'), 'utf8')) as { version: string }).version);
  return hash.digest('hex').slice(0, 24);
}

/**
 * The migrated template for this build's migrations, kept between runs: made once (createTemplateDatabase,
 * about ten seconds) and then found by name, `ipa_test_template_m_<digest>` (migrationsDigest), so a run whose
 * migrations did not change starts without migrating. It only takes that name once fully migrated and closed
 * (a rename, refused if a concurrent run got there first: then that one is used), so a template found by its
 * name is complete. Each run stamps it in use (the database's comment); templates of other digests unused
 * for three days are dropped. TEST_TEMPLATE_CACHE=0 makes a fresh one for the run instead (dropped after it).
 */
export async function cachedTemplateDatabase(serverUrl: string): Promise<string> {
  const name = `${CACHED_TEMPLATE_PREFIX}${migrationsDigest()}`;
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string; used: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS used FROM pg_database WHERE datname LIKE $1`,
      [`${CACHED_TEMPLATE_PREFIX}%`],
    );
    for (const row of rows) {
      const used = Date.parse(row.used ?? '');
      if (row.datname !== name && !(used > Date.now() - CACHED_TEMPLATE_UNUSED_MS)) {
        await client.query(`DROP DATABASE IF EXISTS "${row.datname}"`).catch(() => undefined);
      }
    }
    if (!rows.some((r) => r.datname === name)) {
      const made = await createTemplateDatabase(serverUrl);
      // Stamped before it takes the name, so that no concurrent run sees it unstamped and drops it.
      await client.query(`COMMENT ON DATABASE "${made}" IS '${new Date().toISOString()}'`);
      try {
        await client.query(`ALTER DATABASE "${made}" RENAME TO "${name}"`);
      } catch (e) {
        // 42P04: a concurrent run kept its template under this name first; ours is the same, so it goes.
        await dropTemplateDatabase(serverUrl, made);
        if ((e as { code?: string }).code !== '42P04') throw e;
      }
    }
    await client.query(`COMMENT ON DATABASE "${name}" IS '${new Date().toISOString()}'`);
  } finally {
    await client.end();
  }
  return name;
}

/** True for a template cachedTemplateDatabase keeps between runs (global-teardown.ts leaves it). */
export const isCachedTemplate = (name: string): boolean => name.startsWith(CACHED_TEMPLATE_PREFIX);

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

/**
 * Whether another session of the database is running a statement LIKE `pattern` within `tries` polls
 * 20 ms apart: how a race test knows the statement it holds up (a slow trigger) has started.
 */
export async function untilStatementActive(databaseUrl: string, pattern: string, tries = 250): Promise<boolean> {
  return withClient(databaseUrl, async (c) => {
    for (let i = 0; i < tries; i++) {
      const { rows } = await c.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()`,
        [pattern],
      );
      if (rows.length > 0) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  });
}
