import type { Pool, PoolClient } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import { dataSourceOptions } from '../../../src/shared/db/data-source';
import { inTransaction, pipelines, poolManager, writeBehind } from '../../../src/shared/db/pipelined-transaction';
import { ownTestDatabase } from '../../support/api';

/**
 * What the service's transactions send to PostgreSQL and when (src/shared/db/pipelined-transaction.ts):
 * with pipelining BEGIN leaves with the first statement and COMMIT right behind a last write nobody
 * waits for, and a failure of such a write still fails the transaction and leaves nothing behind.
 * Each connection's writes to its socket are logged with the number of answers (ReadyForQuery)
 * received so far: two messages sent before the first of them was answered were sent together.
 */
interface Sent {
  /** 'BEGIN', 'COMMIT', 'ROLLBACK' or the statement's text. */
  statement: string;
  /** Answers the connection had received when this left. */
  answered: number;
}

const watched = new WeakSet<PoolClient>();
let log: Sent[] = [];

/** Logs what each connection of `ds`'s pool sends: simple queries (BEGIN, COMMIT) and the statements of extended ones (Parse). */
function watch(ds: DataSource): void {
  const pool = (ds.driver as unknown as { master: Pool }).master;
  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    const connection = (client as unknown as { connection: { stream: NodeJS.WritableStream; on(e: string, f: () => void): void } }).connection;
    let answered = 0;
    connection.on('readyForQuery', () => answered++);
    const write = connection.stream.write.bind(connection.stream) as (chunk: Buffer, ...rest: unknown[]) => boolean;
    connection.stream.write = ((chunk: Buffer, ...rest: unknown[]) => {
      const type = String.fromCharCode(chunk[0]);
      if (type === 'Q') log.push({ statement: chunk.toString('utf8', 5, chunk.length - 1), answered });
      // Parse: type, length, the statement's name (NUL-ended), then its text (NUL-ended).
      if (type === 'P') log.push({ statement: chunk.toString('utf8', chunk.indexOf(0, 5) + 1, chunk.indexOf(0, chunk.indexOf(0, 5) + 1)), answered });
      return write(chunk, ...rest);
    }) as NodeJS.WritableStream['write'];
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

  it('BEGIN leaves with the first statement, and COMMIT right behind a last write sent with writeBehind', async () => {
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
    expect(await stored('f')).toBe(1);
  });

  it('outside a transaction a write is waited for', async () => {
    await writeBehind(poolManager(pipelined), INSERT, ['g']);
    expect(await stored('g')).toBe(1);
  });
});
