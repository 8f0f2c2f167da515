import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeleteFileHandler } from './commands/delete-file/delete-file.handler';
import { RegisterFileHandler } from './commands/register-file/register-file.handler';
import { FilesConfig, loadFilesConfig } from './files.config';
import { FilesController } from './files.controller';
import { FileRecord } from './persistence/file.record';
import { FilesRepository } from './persistence/files.repository';
import { FilesPreflightHandler } from './queries/preflight/files-preflight.handler';
import { GetFilesByIdsHandler } from './queries/get-files-by-ids/get-files-by-ids.handler';
import { GetFileContentHandler } from './queries/get-file-content/get-file-content.handler';
import { ListFilesHandler } from './queries/list-files/list-files.handler';
import { FileStorage } from './storage/file-storage';
import { LocalFileStorage } from './storage/local-file-storage';
import { FileUploadInterceptor } from './upload/file-upload.interceptor';
import { UploadReceiver } from './upload/upload-receiver';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/** Files: uploads streamed to a local folder or S3-compatible storage, listed and deleted per organization and mode. */
@Module({
  imports: [TypeOrmModule.forFeature([FileRecord])],
  controllers: [FilesController],
  providers: [
    { provide: FilesConfig, useFactory: () => loadFilesConfig(process.env) },
    {
      provide: FileStorage,
      // The S3 SDK (a few hundred modules) is loaded only by a deployment that stores files there.
      useFactory: async (config: FilesConfig) =>
        config.driver === 's3' ? new (await import('./storage/s3-file-storage.js')).S3FileStorage(config) : new LocalFileStorage(config.FILES_DIR),
      inject: [FilesConfig],
    },
    FilesRepository,
    UploadReceiver,
    FileUploadInterceptor,
    RegisterFileHandler,
    DeleteFileHandler,
    ListFilesHandler,
    GetFileContentHandler,
    GetFilesByIdsHandler,
    FilesPreflightHandler,
  ],
})
export class FilesModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(FilesRepository) private readonly files: FilesRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('file', 'file_not_found', async (scope, id) => (await this.files.find(this.tx.manager, scope, id)) !== null);
  }
}
