import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { FilesRepository } from '../../persistence/files.repository';
import { FileStorage } from '../../storage/file-storage';
import { FileContent, GetFileContentQuery } from './get-file-content.query';

@QueryHandler(GetFileContentQuery)
export class GetFileContentHandler implements IQueryHandler<GetFileContentQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly repo: FilesRepository,
    @Inject(FileStorage) private readonly storage: FileStorage,
  ) {}

  async execute({ scope, fileId }: GetFileContentQuery): Promise<FileContent> {
    const file = await this.tx.readSnapshot(scope, (m) => this.repo.find(m, scope, fileId), false);
    if (!file) throw new NotFoundError('file');
    const stored = await this.storage.read(file.storageKey);
    if (!stored) throw new NotFoundError('file content', 'file_content_missing');
    return { id: file.id, name: file.name, mimeType: file.mimeType, size: file.size, body: stored.body };
  }
}
