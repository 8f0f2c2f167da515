import type { Pool, PoolClient } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import { dataSourceOptions } from '../../../src/shared/db/data-source';
import { inTransaction, pipelines, poolManager, writeBehind } from '../../../src/shared/db/pipelined-transaction';
import { ownTestDatabase } from '../../support/api';

/**
 * What the service's transactions send to PostgreSQL and when (src/shared/db/pipelined-transaction.ts):
 * with pipelining BEGIN leaves with the first statement and COMMIT right behind a last write nobody
 * waits for, each pair in one write to the socket, and a failure of such a write still fails the
 * transaction and leaves nothing behind. Each connection's writes to its socket are logged with the
 * statements in them and the number of answers (ReadyForQuery) received so far: two statements sent
 * before the first of them was answered were sent together.
 */
interface Sent {
  /** 'BEGIN', 'COMMIT', 'ROLLBACK' or the statement's text. */
  statement: string;
  /** Answers the connection had received when this left. */
  answered: number;
  /** Which write to the socket (counted over all connections) carried it. */
  write: number;
}

const watched = new WeakSet<PoolClient>();
let log: Sent[] = [];
let writes = 0;

type Done = (error?: Error | null) => void;
interface SocketStream {
  _write(chunk: Buffer, encoding: string, done: Done): void;
  _writev(chunks: { chunk: Buffer }[], done: Done): void;
}

/** The statement a message of the wire protocol carries: a simple query's (BEGIN, COMMIT) or an extended one's Parse. */
function statementIn(message: Buffer): string | undefined {
  const type = String.fromCharCode(message[0]);
  if (type === 'Q') return message.toString('utf8', 5, message.length - 1);
  // Parse: type, length, the statement's name (NUL-ended), then its text (NUL-ended).
  const textAt = message.indexOf(0, 5) + 1;
  if (type === 'P') return message.toString('utf8', textAt, message.indexOf(0, textAt));
  return undefined;
}

/** Logs what each connection of `ds`'s pool writes to its socket, one socket write at a time. */
function watch(ds: DataSource): void {
  const pool = (ds.driver as unknown as { master: Pool }).master;
  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    const connection = (client as unknown as { connection: { stream: SocketStream; on(e: string, f: () => void): void } }).connection;
    let answered = 0;
    connection.on('readyForQuery', () => answered++);
    const logWrite = (messages: Buffer[]) => {
      writes++;
      for (const message of messages) {
        const statement = statementIn(message);
        if (statement !== undefined) log.push({ statement, answered, write: writes });
      }
    };
    const stream = connection.stream;
    const write = stream._write.bind(stream);
    const writev = stream._writev.bind(stream);
    stream._write = (chunk, encoding, done) => {
      logWrite([chunk]);
      write(chunk, encoding, done);
    };
    stream._writev = (chunks, done) => {
      logWrite(chunks.map((c) => c.chunk));
      writev(chunks, done);
    };
  });
}

const sentAt = (statement: string): Sent => {
  const found = log.find((s) => s.statement === statement);
  if (!found) throw new Error(`${statement} was not sent: ${JSON.stringify(log)}`);
  return found;
};

const INSERT = 'INSERT INTO pipelined_rows (id) VALUES ($1)';
const COUNT = 'SELECT count(*)::int AS n FROM pipelined_rows WHERE id = $1';

describe('pipelined transactions', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let url: string;
  let pipelined: DataSource;
  let waiting: DataSource;

  beforeAll(async () => {
    database = await ownTestDatabase();
    url = database.url;
    pipelined = await new DataSource({ ...dataSourceOptions(url, 2, true), entities: [], migrations: [] }).initialize();
    waiting = await new DataSource({ ...dataSourceOptions(url, 2, false), entities: [], migrations: [] }).initialize();
    await pipelined.query('CREATE TABLE pipelined_rows (id text PRIMARY KEY)');
    watch(pipelined);
    watch(waiting);
  });
  afterAll(async () => {
    await pipelined?.destroy();
    await waiting?.destroy();
    await database?.drop();
  });
  beforeEach(() => {
    log = [];
  });

  const stored = async (id: string): Promise<number> => (await poolManager(pipelined).query(COUNT, [id]))[0].n as number;

  it('the service’s connections pipeline, and not behind a pooler (DB_PREPARED_STATEMENTS=false)', () => {
    expect(pipelines(pipelined)).toBe(true);
    expect(pipelines(waiting)).toBe(false);
  });

  it('BEGIN leaves with the first statement, and COMMIT right behind a last write sent with writeBehind, each pair in one socket write', async () => {
    const result = await inTransaction(pipelined, async (m) => {
      expect(m.queryRunner?.isTransactionActive).toBe(true);
      const rows = await m.query(`SELECT 'first' AS x`);
      await writeBehind(m, INSERT, ['a']);
      return rows[0].x as string;
    });
    expect(result).toBe('first');
    // Sent before BEGIN was answered; the insert after the select's answer, COMMIT before the insert's.
    expect(sentAt(`SELECT 'first' AS x`).answered).toBe(sentAt('BEGIN').answered);
    expect(sentAt('COMMIT').answered).toBe(sentAt(INSERT).answered);
    expect(sentAt(INSERT).answered).toBe(sentAt('BEGIN').answered + 2);
    expect(sentAt(`SELECT 'first' AS x`).write).toBe(sentAt('BEGIN').write);
    expect(sentAt('COMMIT').write).toBe(sentAt(INSERT).write);
    expect(sentAt(INSERT).write).toBeGreaterThan(sentAt('BEGIN').write);
    expect(await stored('a')).toBe(1);
  });

  it('a write nobody waited for that fails fails the transaction with its error, and nothing of it is committed', async () => {
    await poolManager(pipelined).query(INSERT, ['taken']);
    const outcome = inTransaction(pipelined, async (m) => {
      await m.query(INSERT, ['b']);
      await writeBehind(m, INSERT, ['taken']);
      return 'looked fine';
    });
    await expect(outcome).rejects.toBeInstanceOf(QueryFailedError);
    await expect(outcome).rejects.toMatchObject({ driverError: { code: '23505' } });
    expect(await stored('b')).toBe(0);
    // The next transaction on the pool's connections starts clean.
    await inTransaction(pipelined, (m) => writeBehind(m, INSERT, ['c']));
    expect(await stored('c')).toBe(1);
  });

  it('statements sent in one go leave in one socket write, even across awaits of work that is not the database’s', async () => {
    await inTransaction(pipelined, async (m) => {
      await writeBehind(m, INSERT, ['h1']);
      await Promise.resolve();
      await writeBehind(m, INSERT, ['h2']);
    });
    expect(new Set(log.map((s) => s.write)).size).toBe(1);
    expect(log.map((s) => s.statement)).toEqual(['BEGIN', INSERT, INSERT, 'COMMIT']);
    expect(await stored('h2')).toBe(1);
  });

  it('a statement sent after a write nobody waited for runs after it and sees its change', async () => {
    const seen = await inTransaction(pipelined, async (m) => {
      await writeBehind(m, INSERT, ['d']);
      return (await m.query(COUNT, ['d']))[0].n as number;
    });
    expect(seen).toBe(1);
  });

  it('an error thrown by the work rolls back what was sent without waiting', async () => {
    const outcome = inTransaction(pipelined, async (m) => {
      await writeBehind(m, INSERT, ['e']);
      throw new Error('changed my mind');
    });
    await expect(outcome).rejects.toThrow('changed my mind');
    expect(await stored('e')).toBe(0);
    expect(log.map((s) => s.statement)).toContain('ROLLBACK');
  });

  it('without pipelining every statement waits for the answer to the one before', async () => {
    await inTransaction(waiting, async (m) => {
      await m.query(`SELECT 'waited' AS x`);
      await writeBehind(m, INSERT, ['f']);
    });
    expect(sentAt(`SELECT 'waited' AS x`).answered).toBe(sentAt('BEGIN').answered + 1);
    expect(sentAt('COMMIT').answered).toBe(sentAt(INSERT).answered + 1);
    expect(new Set(log.map((s) => s.write)).size).toBe(4);
    expect(await stored('f')).toBe(1);
  });

  it('outside a transaction a write is waited for', async () => {
    await writeBehind(poolManager(pipelined), INSERT, ['g']);
    expect(await stored('g')).toBe(1);
  });
});
