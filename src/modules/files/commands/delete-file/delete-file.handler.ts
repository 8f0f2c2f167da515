import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ServiceUnavailableError } from '../../../../shared/errors/domain-error';
import { EventOutbox } from '../../../../shared/events/outbox';
import { AppConfig } from '../../../../shared/config/app-config';
import { FilesRepository } from '../../persistence/files.repository';
import { FileStorage, removeWithRetry } from '../../storage/file-storage';
import { fileEventObject } from '../file-event';
import { DeleteFileCommand } from './delete-file.command';
import { FILE_EVENTS } from '../../events/file.events';

/**
 * Deletes a file: in one transaction the record is locked, the stored bytes are removed (retried;
 * an already missing object counts as removed), and only then is the record deleted. If the
 * storage refuses, the transaction rolls back and the file stays listed with its bytes; a retried
 * DELETE finishes the job. Bytes never outlive their record (a deleted file's content is gone, there
 * is no sweeper to find it later). The other way round is possible: should the record's delete or the
 * commit fail after the bytes went, the file stays listed and answers 404 file_content_missing until a
 * retried DELETE clears it.
 */
@CommandHandler(DeleteFileCommand)
export class DeleteFileHandler implements ICommandHandler<DeleteFileCommand> {
  private readonly logger = new Logger('Files');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly repo: FilesRepository,
    @Inject(FileStorage) private readonly storage: FileStorage,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async execute({ scope, fileId }: DeleteFileCommand): Promise<{ id: string }> {
    return this.tx.run(async (m) => {
      const file = await this.repo.find(m, scope, fileId, true);
      if (!file) throw new NotFoundError('file');
      try {
        await removeWithRetry(this.storage, file.storageKey);
      } catch (e) {
        this.logger.error({ err: { message: (e as Error)?.message }, file_id: file.id }, 'could not remove stored bytes');
        throw new ServiceUnavailableError('File storage is unavailable; the file was not deleted, retry shortly');
      }
      await this.repo.remove(m, scope, file.id);
      await this.outbox.record(m, scope, FILE_EVENTS['file.deleted'], fileEventObject(file, this.config.publicBaseUrl));
      return { id: file.id };
    });
  }
}
