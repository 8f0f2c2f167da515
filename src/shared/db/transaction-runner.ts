import { Inject, Injectable } from '@nestjs/common';
import type { Pool, QueryResult } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { idempotencyScope } from '../idempotency/idempotency-scope';

/**
 * Handlers own their transaction: `run(manager => ...)`, and every repository call inside takes
 * that manager. Nothing reaches the database outside it while it is open.
 */
@Injectable()
export class TransactionRunner {
  private readonly reads: EntityManager;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.reads = poolManager(dataSource);
  }

  /**
   * Runs `work` in one transaction. A transaction PostgreSQL chose as a deadlock victim (40P01) or
   * could not serialize (40001) was rolled back whole, so it is run again, up to three times.
   */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(work);
      } catch (e) {
        const code = (e as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (e as { code?: string }).code;
        if (attempt >= 3 || (code !== '40P01' && code !== '40001')) throw e;
        await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20 * attempt)));
      }
    }
  }

  private runOnce<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const claim = idempotencyScope.getStore();
    if (!claim || claim.applied) return this.dataSource.transaction(work);
    // A request sent with an Idempotency-Key: its claim is marked applied in the same commit.
    return this.dataSource.transaction(async (m) => {
      const result = await work(m);
      await m.query(
        `UPDATE idempotency_keys SET state = 'applied' WHERE organization_id = $1 AND mode = $2 AND key = $3 AND state = 'in_flight'`,
        [claim.organizationId, claim.mode, claim.key],
      );
      return result;
    }).then((result) => {
      claim.applied = true;
      return result;
    });
  }

  /** For reads (and single statements) that need no transaction. */
  get manager(): EntityManager {
    return this.reads;
  }
}

/**
 * The data source's manager, except that `query()` sends the statement straight to the pool, with
 * the same results and errors as TypeORM's (rows; `[rows, count]` for UPDATE and DELETE;
 * QueryFailedError). Outside a transaction TypeORM would make, connect and release a query runner
 * per statement and announce it to subscribers we do not have; on a read of one invoice that was
 * about a twentieth of the request's CPU. Everything else is the data source's manager.
 */
function poolManager(dataSource: DataSource): EntityManager {
  const base = dataSource.manager;
  const pool = () => (dataSource.driver as unknown as { master: Pool }).master;
  const manager = Object.create(base) as EntityManager;
  manager.query = (async (sql: string, parameters?: unknown[]) => {
    let result: QueryResult;
    try {
      result = await pool().query(sql, parameters);
    } catch (e) {
      throw new QueryFailedError(sql, parameters, e as Error);
    }
    return result.command === 'UPDATE' || result.command === 'DELETE' ? [result.rows, result.rowCount] : result.rows;
  }) as EntityManager['query'];
  return manager;
}
