import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { FilesRepository } from '../../persistence/files.repository';
import { toFileView } from '../list-files/list-files.handler';
import type { FileView } from '../list-files/list-files.query';
import { GetFilesByIdsQuery } from './get-files-by-ids.query';

@QueryHandler(GetFilesByIdsQuery)
export class GetFilesByIdsHandler implements IQueryHandler<GetFilesByIdsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly repo: FilesRepository,
  ) {}

  async execute({ scope, ids, unitOfWork }: GetFilesByIdsQuery): Promise<Record<string, FileView>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return {};
    const files = await this.repo.findMany(unitOfWork ?? this.tx.manager, scope, unique, unitOfWork !== undefined);
    return Object.fromEntries(files.map((f) => [f.id, toFileView(f)]));
  }
}
