import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { statementName } from './prepared';

/**
 * Transactions on the pool's connections, with as few waits on PostgreSQL as their statements
 * allow. The pool's connections pipeline (`pipeline: true` in data-source.ts): a statement goes out
 * when it is sent, not when the one before it has been answered, and PostgreSQL answers them in
 * order. So:
 * - BEGIN is not waited for: it leaves with the transaction's first statement and both come back
 *   together, one round trip instead of two;
 * - a write nothing needs the answer of (`writeBehind`) is sent and not waited for, so when it is
 *   the transaction's last statement COMMIT leaves right behind it, again one round trip instead
 *   of two. Its answer is still read before the transaction counts as committed: if it failed,
 *   PostgreSQL has rolled the transaction back (COMMIT answers ROLLBACK) and the transaction fails
 *   with that statement's error, as if it had been awaited.
 * - statements sent one after the other leave in one write to the socket (`together`), so
 *   PostgreSQL is woken once for them, not once each: BEGIN with the first statement, a last
 *   write with COMMIT.
 * Without pipelining (DB_PREPARED_STATEMENTS=false, for poolers) every statement is waited for.
 */

/** The writes sent behind a transaction's back (and BEGIN), whose answers COMMIT waits for. */
const WRITES = Symbol('writes sent without waiting');

interface TransactionManager extends EntityManager {
  [WRITES]?: Promise<unknown>[];
}

/** Whether the pool's connections send statements without waiting for the one before. */
export function pipelines(dataSource: DataSource): boolean {
  return Boolean((pool(dataSource) as unknown as { options?: { pipeline?: boolean } }).options?.pipeline);
}

/**
 * Runs `work` in one transaction on one pooled connection. TypeORM's query runner holds the
 * connection and is marked in a transaction while `work` runs, so an entity operation inside
 * (`save`) does not open one of its own; everything `manager.query` sends goes to the connection
 * directly, in the order it is sent.
 */
export async function inTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  watchBorrows(pool(dataSource));
  const runner = dataSource.createQueryRunner('master');
  const client = (await runner.connect()) as PoolClient;
  const state = runner as { isTransactionActive: boolean };
  state.isTransactionActive = true;
  const pipelined = pipelines(dataSource);
  const writes: Promise<unknown>[] = [];
  const open: OpenTransaction = { open: true };
  try {
    if (pipelined) together(client);
    const begun = send(client, 'BEGIN', undefined);
    if (pipelined) writes.push(handled(begun));
    else await begun;
    const result = await openTransactions.run(open, () => work(transactionManager(runner.manager, client, pipelined ? writes : null)));
    if (pipelined) together(client);
    const commit = handled(client.query('COMMIT'));
    for (const write of writes) await write;
    // A statement nobody waited for failed: its error was thrown above. Answered ROLLBACK all the
    // same, the transaction did not commit, and that must not pass for success.
    if ((await commit).command !== 'COMMIT') throw new Error('the transaction was rolled back at COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    open.open = false;
    state.isTransactionActive = false;
    await runner.release();
  }
}

/** Marks the work of a transaction that is still open (the store of `openTransactions`). */
interface OpenTransaction {
  open: boolean;
}

/** The open transaction whose work is running, if any. */
const openTransactions = new AsyncLocalStorage<OpenTransaction>();

/** Pools whose `connect` is watched. */
const watched = new WeakSet<Pool>();

/**
 * Where a nested borrow is reported (the transaction runner points it at its logger); this file stays
 * free of Nest, so tests load it on its own.
 */
let reportNestedBorrow: (entry: Record<string, unknown>) => void = () => undefined;

export function onNestedBorrow(report: (entry: Record<string, unknown>) => void): void {
  reportNestedBorrow = report;
}

/**
 * Connections borrowed from the pool by work that already holds one for its own open transaction
 * (a statement sent on the data source's manager, a query asked on a bus whose handler reads
 * without the caller's manager, a second transaction). Each such borrow is a bug: the borrower holds
 * a connection (and its locks) while it waits for another, so as many of them at once as the pool
 * has connections wait on one another until the pool's timeout. `waited`: those made when the pool
 * had no idle connection left and could open no more, i.e. that had to wait for one.
 */
export const nestedBorrows = { total: 0, waited: 0 };

/**
 * Counts and logs (warn, `nested_pool_borrow`, with the caller's stack) every connection borrowed
 * from `pool` while the work of an open transaction runs. Installed on the pool once, by the first
 * transaction; `pg`'s own `query` on the pool borrows through `connect` too.
 */
function watchBorrows(target: Pool): void {
  if (watched.has(target)) return;
  watched.add(target);
  const connect = target.connect.bind(target) as (...args: unknown[]) => unknown;
  (target as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    if (openTransactions.getStore()?.open) {
      const max = (target as unknown as { options?: { max?: number } }).options?.max ?? Infinity;
      const waits = target.idleCount === 0 && target.totalCount >= max;
      nestedBorrows.total++;
      if (waits) nestedBorrows.waited++;
      reportNestedBorrow({
        msg: "a second database connection was borrowed inside an open transaction; pass the transaction's manager instead",
        event: 'nested_pool_borrow',
        waits,
        pool: { total: target.totalCount, idle: target.idleCount, waiting: target.waitingCount },
        stack: new Error().stack?.split('\n').slice(2, 16).join('\n'),
      });
    }
    return connect(...args);
  };
}

/**
 * Sends a write whose answer the caller does not need (no rows, no count). In a pipelined
 * transaction it returns at once and the transaction checks its answer before it commits; a
 * statement sent after it still runs after it and sees its change. Anywhere else it is awaited.
 * `failure` turns the statement's error into the one the transaction fails with.
 */
export async function writeBehind(m: EntityManager, sql: string, parameters: unknown[], failure?: (e: unknown) => unknown): Promise<void> {
  const writes = (m as TransactionManager)[WRITES];
  const query: Promise<unknown> = m.query(sql, parameters);
  const sent = failure
    ? query.catch((e: unknown) => {
        throw failure(e);
      })
    : query;
  if (writes) writes.push(handled(sent));
  else await sent;
}

/**
 * The data source's manager, except that `query()` sends the statement straight to the pool, with
 * the same results and errors as TypeORM's. Outside a transaction TypeORM would make, connect and
 * release a query runner per statement and announce it to subscribers we do not have; on a read
 * of one invoice that was about a twentieth of the request's CPU. Everything else is the data
 * source's manager.
 */
export function poolManager(dataSource: DataSource): EntityManager {
  const manager = Object.create(dataSource.manager) as EntityManager;
  manager.query = ((sql: string, parameters?: unknown[]) => send(pool(dataSource), sql, parameters)) as EntityManager['query'];
  return manager;
}

/**
 * A transaction's manager whose statements go to the transaction's connection directly (prepared
 * ones by name), each sent the moment `query()` is called: TypeORM's own path to the connection
 * passes through a few awaits first, which would let a later statement, or COMMIT, overtake it.
 */
function transactionManager(m: EntityManager, client: PoolClient, writes: Promise<unknown>[] | null): EntityManager {
  const manager = Object.create(m) as TransactionManager;
  manager.query = ((sql: string, parameters?: unknown[]) => {
    if (writes) together(client);
    return send(client, sql, parameters);
  }) as EntityManager['query'];
  if (writes) manager[WRITES] = writes;
  return manager;
}

/** The sockets whose writes are being held by `together`. */
const holding = new WeakSet<Writable>();

/**
 * Holds what is sent on `client`'s socket until the code running now has run out of work and will
 * wait: the moment the promise callbacks queued behind the current one are all done. Everything
 * sent until then leaves in one write. Each write to a socket wakes the PostgreSQL backend reading
 * it, and on a loaded machine that wake-up, not the bytes, is what a write costs, on both sides.
 * A statement whose answer is awaited is never held longer than that: awaiting it is running out
 * of work.
 */
function together(client: PoolClient): void {
  const stream = (client as unknown as { connection: { stream: Writable } }).connection.stream;
  if (holding.has(stream)) return;
  holding.add(stream);
  stream.cork();
  // A tick asked for by a promise callback runs once no promise callback is left to run.
  queueMicrotask(() =>
    process.nextTick(() => {
      holding.delete(stream);
      stream.uncork();
    }),
  );
}

/** A promise nobody may await for a while: its rejection is not reported as unhandled. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The pool behind the data source (the primary's). */
export function poolOf(dataSource: DataSource): Pool {
  return pool(dataSource);
}

function pool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/** A query's answer the way TypeORM's query() gives it: rows, or `[rows, count]` for UPDATE and DELETE. */
function typeormShape(result: QueryResult): unknown {
  return result.command === 'UPDATE' || result.command === 'DELETE' ? [result.rows, result.rowCount] : result.rows;
}

/** Runs `sql` on `client`, as its prepared statement when it is one; errors as TypeORM's QueryFailedError. */
export async function send(client: Pick<Pool, 'query'>, sql: string, parameters: unknown[] | undefined): Promise<unknown> {
  const name = statementName(sql);
  try {
    return typeormShape(await (name ? client.query({ name, text: sql, values: parameters }) : client.query(sql, parameters)));
  } catch (e) {
    throw new QueryFailedError(sql, parameters, e as Error);
  }
}
