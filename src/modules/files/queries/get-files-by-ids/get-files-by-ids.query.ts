import { Query } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import type { FileView } from '../list-files/list-files.query';

/**
 * The caller's files with these ids, keyed by id; an id of another organization or mode, or of a
 * deleted file, is simply absent. Read on the primary: it checks references a write is about to store.
 * A caller inside a transaction passes it as `unitOfWork` (the read joins it instead of taking a
 * second connection from the pool); the files are then locked against deletion (FOR SHARE) until it ends.
 */
export class GetFilesByIdsQuery extends Query<Record<string, FileView>> {
  constructor(
    readonly scope: Scope,
    readonly ids: readonly string[],
    readonly unitOfWork?: EntityManager,
  ) {
    super();
  }
}
