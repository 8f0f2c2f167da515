import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Handlers own their transaction: `run(manager => ...)`, and every repository call inside takes
 * that manager. Nothing reaches the database outside it while it is open.
 */
@Injectable()
export class TransactionRunner {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** For reads that need no transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
