import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { formatTimestamp } from '../../../../shared/time/time';
import { FilesRepository } from '../../persistence/files.repository';
import type { FileRecord } from '../../persistence/file.record';
import { FileListView, FileView, ListFilesQuery } from './list-files.query';

export function toFileView(f: FileRecord): FileView {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    mime_type: f.mimeType,
    size: f.size,
    sha256: f.sha256,
    created_at: formatTimestamp(f.createdAt),
  };
}

@QueryHandler(ListFilesQuery)
export class ListFilesHandler implements IQueryHandler<ListFilesQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly repo: FilesRepository,
  ) {}

  async execute({ scope, filters, limit, offset }: ListFilesQuery): Promise<FileListView> {
    const { items, total } = await this.repo.list(this.tx.readsFor(scope), scope, filters, limit, offset);
    return {
      items: items.map(toFileView),
      total,
      limit,
      offset,
      has_more: offset + items.length < total,
    };
  }
}
