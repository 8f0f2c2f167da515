import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';

/** Compiled migrations live in dist/migrations beside dist/src. */
export const MIGRATIONS_GLOB = join(__dirname, '..', '..', '..', 'migrations', '*.js');
export const RECORDS_GLOB = join(__dirname, '..', '..', 'modules', '**', '*.record.js');

export function dataSourceOptions(url: string, poolSize: number, embedded = false): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: [MIGRATIONS_GLOB],
    migrationsTableName: 'schema_migrations',
    entities: [RECORDS_GLOB],
    poolSize,
    applicationName: 'invoicing-api',
    extra: {
      max: poolSize,
      connectionTimeoutMillis: embedded ? 30_000 : 5_000,
      statement_timeout: 30_000,
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
