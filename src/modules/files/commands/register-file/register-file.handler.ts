import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import { fileNameProblem } from '../../domain/file-name';
import { AppConfig } from '../../../../shared/config/app-config';
import { FileRecord } from '../../persistence/file.record';
import { FilesRepository } from '../../persistence/files.repository';
import { fileEventObject } from '../file-event';
import { RegisterFileCommand } from './register-file.command';
import { FILE_EVENTS } from '../../events/file.events';

@CommandHandler(RegisterFileCommand)
export class RegisterFileHandler implements ICommandHandler<RegisterFileCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly repo: FilesRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async execute({ scope, name, content }: RegisterFileCommand): Promise<{ id: string }> {
    const problem = fileNameProblem(name);
    if (problem) throw new ValidationFailedError({ name: problem });
    if (content.size === 0) throw new ValidationFailedError({ file: 'must not be empty' });
    const record: FileRecord = {
      id: content.fileId,
      organizationId: scope.organizationId,
      mode: scope.mode,
      name,
      type: content.type,
      mimeType: content.mimeType,
      size: content.size,
      sha256: content.sha256,
      storageDriver: content.storageDriver,
      storageKey: content.storageKey,
      createdAt: this.clock.now(),
    };
    await this.tx.run(async (m) => {
      await this.repo.insert(m, record);
      await this.outbox.record(m, scope, FILE_EVENTS['file.created'], fileEventObject(record, this.config.publicBaseUrl));
    });
    return { id: content.fileId };
  }
}
