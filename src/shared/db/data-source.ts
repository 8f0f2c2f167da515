import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DataSource, DataSourceOptions, MigrationInterface } from 'typeorm';
import { serviceTypeParsers } from './timestamps';
import { SESSION_OPTIONS } from './session-options';

/** Compiled migrations live in dist/migrations/<owner>/ beside dist/src (the owning module's folder, or `shared`). */
export const MIGRATIONS_DIR = join(__dirname, '..', '..', '..', 'migrations');

/**
 * Every migration file under MIGRATIONS_DIR, whichever folder owns it, in the order of their file names
 * (`<timestamp>-<name>.js`): one ordered run across the owners' folders. TypeORM sorts by timestamp
 * again, keeping this order among migrations that share one, so a fresh database is built in the same
 * order as before the files moved into folders, and a database migrated before finds every name it recorded.
 * Files under a `support/` folder are helpers migrations import, not migrations.
 */
export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.js') && !path.split(/[\\/]/).includes('support'))
    .map((path) => join(dir, path));
  return files.sort((a, b) => (basename(a) < basename(b) ? -1 : basename(a) > basename(b) ? 1 : 0));
}
/**
 * The migration classes of migrationFiles(), in that order: every function a file exports, which is what
 * TypeORM takes from a file it is given by path. Handing it the classes spares each process TypeORM's
 * path handling: a glob match and a package.json lookup per file, about 40 ms of every start and CLI
 * command for some sixty files.
 */
export function migrationClasses(dir = MIGRATIONS_DIR): MigrationClass[] {
  return migrationFiles(dir).flatMap((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the files are found at run time
    const exported = require(file) as Record<string, unknown>;
    return Object.values(exported).filter((value): value is MigrationClass => typeof value === 'function');
  });
}

type MigrationClass = new () => MigrationInterface;

export const RECORDS_GLOB = join(__dirname, '..', '..', 'modules', '**', '*.record.js');

/**
 * Connection settings for the service, the CLI and the benchmark's seeding.
 *
 * `direct` (the connections reach PostgreSQL itself, not a transaction pooler; it follows
 * DB_PREPARED_STATEMENTS) turns on two session habits.
 *
 * Pipelining (`pipeline: true`): a connection sends a statement when it is given one, without
 * waiting for the answer to the one before, so a transaction's BEGIN leaves with its first
 * statement and COMMIT right behind its last write (pipelined-transaction.ts). Off behind a pooler,
 * which may not follow several statements in flight on one client connection.
 *
 * Generic plans: the sessions plan statements once (plan_cache_mode=force_generic_plan, sent in the
 * startup packet, so no extra round trip). Left to itself PostgreSQL keeps re-planning some prepared
 * statements on every call: a cursor page (starting_after) was planned each time, 0.3 ms of planning
 * for 0.2 ms of execution, because the custom plan's estimate looks cheaper even though both plans
 * are the same index walk. The setting holds for every statement of the session, unnamed ones too:
 * those are still planned at each call, but without looking at their values. The statements whose
 * best plan depends on the values are written so that the plan without them is right (list filters:
 * keyset-page.ts); the dashboard measured the same either way. It goes with prepared statements:
 * transaction poolers may refuse the parameter. The same startup parameters turn JIT off
 * (session-options.ts).
 *
 * Connection lifetime (`lifetimeSeconds`, DB_CONNECTION_LIFETIME_SECONDS; 0 keeps connections for
 * ever): a session keeps the plan of each prepared statement until one of its tables is analyzed or
 * altered. A plan made while a table was empty scans it whole: on a payments table analyzed while
 * empty (`VACUUM ANALYZE` on a fresh database), the read of an invoice's payments was planned as a
 * sequential scan and stayed one while the table grew, because nothing analyzed it again
 * (autovacuum off, or behind). The pool replaces a connection once it is that old, when it is next
 * idle, and the new session plans each statement against the table as it is then.
 */
export function dataSourceOptions(url: string, poolSize: number, direct = false, lifetimeSeconds = 0): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: migrationClasses(),
    migrationsTableName: 'schema_migrations',
    entities: [RECORDS_GLOB],
    poolSize,
    applicationName: 'invoicing-api',
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      maxLifetimeSeconds: lifetimeSeconds,
      statement_timeout: 30_000,
      types: serviceTypeParsers(),
      ...(direct && { options: SESSION_OPTIONS, pipeline: true }),
    },
  };
}

const MIGRATION_LOCK = 7_301_455_001;

/** Runs pending migrations once, even when several instances start together. */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
