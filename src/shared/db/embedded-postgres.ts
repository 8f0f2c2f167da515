import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) persisted under DATA_DIR
 * and exposed through the PostgreSQL wire protocol, so the ordinary driver, the same migrations
 * and the same SQL run on it. Meant for trying and developing; production sets DATABASE_URL.
 *
 * PGlite's server accepts any user and password, so it is not exposed on a TCP port at all (where
 * every local user and every process sharing the network namespace could reach it): it listens
 * on a Unix socket inside a directory only the service's user can enter (mode 0700), under
 * DATA_DIR (`DATA_DIR/socket/.s.PGSQL.5432`), or in a private temporary directory when that
 * path is too long for a socket.
 *
 * A PGlite folder can be opened by one process only. The process that opens it writes
 * `embedded-db.json` beside it (readable by its user only) with its address, so the CLI can
 * connect through the running service instead of opening the folder a second time.
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

/** The socket's port number (part of its file name, `.s.PGSQL.<port>`, as libpq and pg expect). */
const SOCKET_PORT = 5432;
/** Longest socket path that fits in sockaddr_un on every platform we run on (108 on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** A directory only this user can enter, for the socket: DATA_DIR/socket, or a fresh one under the system's temporary folder. */
function privateSocketDir(dataDir: string): { dir: string; temporary: boolean } {
  const inData = join(resolve(dataDir), 'socket');
  if (join(inData, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH) {
    mkdirSync(inData, { recursive: true, mode: 0o700 });
    chmodSync(inData, 0o700);
    return { dir: inData, temporary: false };
  }
  return { dir: mkdtempSync(join(tmpdir(), 'ipa-pg-')), temporary: true };
}

/** The connection URL of a PostgreSQL Unix socket in `dir` (pg and libpq read the directory from `host`). */
export function socketUrl(dir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${SOCKET_PORT}&sslmode=disable`;
}

export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const folder = join(resolve(dataDir), 'pgdata');
  mkdirSync(folder, { recursive: true });
  const socket = privateSocketDir(dataDir);
  const socketPath = join(socket.dir, `.s.PGSQL.${SOCKET_PORT}`);
  // A socket file left by a process that died: nobody listens on it any more.
  if (!findRunningEmbedded(dataDir)) rmSync(socketPath, { force: true });
  const db = await PGlite.create(folder);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  await server.start();
  const url = socketUrl(socket.dir);
  const marker = embeddedMarkerPath(dataDir);
  writeFileSync(marker, JSON.stringify({ pid: process.pid, url } satisfies Marker), { mode: 0o600 });
  return {
    url,
    async stop() {
      rmSync(marker, { force: true });
      await server.stop();
      await db.close();
      rmSync(socket.temporary ? socket.dir : socketPath, { recursive: true, force: true });
    },
  };
}
