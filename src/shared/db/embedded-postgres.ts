import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) persisted under DATA_DIR
 * and exposed on a loopback port through the PostgreSQL wire protocol, so the ordinary driver,
 * the same migrations and the same SQL run on it. Meant for trying and developing; production
 * sets DATABASE_URL.
 *
 * A PGlite folder can be opened by one process only. The process that opens it writes
 * `embedded-db.json` beside it with its address, so the CLI can connect through the running
 * service instead of opening the folder a second time.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Marker {
  pid: number;
  url: string;
}

export function embeddedMarkerPath(dataDir: string): string {
  return join(resolve(dataDir), 'embedded-db.json');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The address of an embedded database another live process of ours is serving, if any. */
export function findRunningEmbedded(dataDir: string): string | null {
  try {
    const marker = JSON.parse(readFileSync(embeddedMarkerPath(dataDir), 'utf8')) as Marker;
    return marker.pid !== process.pid && processAlive(marker.pid) ? marker.url : null;
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const folder = join(resolve(dataDir), 'pgdata');
  mkdirSync(folder, { recursive: true });
  const db = await PGlite.create(folder);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const conn = server.getServerConn();
  const url = `postgres://postgres:postgres@${conn}/postgres?sslmode=disable`;
  const marker = embeddedMarkerPath(dataDir);
  writeFileSync(marker, JSON.stringify({ pid: process.pid, url } satisfies Marker));
  return {
    url,
    async stop() {
      rmSync(marker, { force: true });
      await server.stop();
      await db.close();
    },
  };
}
