import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedUrl, withStoppedEmbedded } from './embedded';
import { createDatabase, dropDatabase } from './pg';

/**
 * The database of a service a test starts and stops itself: a new database on TEST_PG_SERVER_URL when
 * the run has one (CI), else the embedded database the service makes in a new folder of its own.
 */
export class OwnDatabase {
  private constructor(
    /** The server it was made on; null: embedded. */
    private readonly server: string | null,
    readonly databaseUrl: string | undefined,
    readonly dataDir: string | undefined,
  ) {}

  static async create(prefix: string): Promise<OwnDatabase> {
    const server = process.env.TEST_PG_SERVER_URL ?? null;
    return server
      ? new OwnDatabase(server, await createDatabase(server), undefined)
      : new OwnDatabase(null, undefined, mkdtempSync(join(tmpdir(), `ipa-${prefix}-`)));
  }

  /** What startServer takes to run the service on it. */
  get serverOptions(): { databaseUrl: string | undefined; dataDir: string | undefined } {
    return { databaseUrl: this.databaseUrl, dataDir: this.dataDir };
  }

  /** What the CLI takes to run on it (the other setting unset). */
  get cliEnv(): Record<string, string | undefined> {
    return this.databaseUrl ? { DATABASE_URL: this.databaseUrl, DATA_DIR: undefined } : { DATABASE_URL: undefined, DATA_DIR: this.dataDir };
  }

  /** Its address while the service runs on it. */
  url(): string {
    return this.databaseUrl ?? embeddedUrl(this.dataDir!);
  }

  /** SQL while the service is stopped (an embedded database is run for the length of the call). */
  whileStopped<T>(work: (url: string) => Promise<T>): Promise<T> {
    return this.databaseUrl ? work(this.databaseUrl) : withStoppedEmbedded(this.dataDir!, work);
  }

  async drop(): Promise<void> {
    if (this.server && this.databaseUrl) await dropDatabase(this.server, this.databaseUrl);
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
