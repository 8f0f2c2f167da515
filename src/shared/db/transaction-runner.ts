import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { idempotencyScope } from '../idempotency/idempotency-scope';

/**
 * Handlers own their transaction: `run(manager => ...)`, and every repository call inside takes
 * that manager. Nothing reaches the database outside it while it is open.
 */
@Injectable()
export class TransactionRunner {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
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

  /** For reads that need no transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
