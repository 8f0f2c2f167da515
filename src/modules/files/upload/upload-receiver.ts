import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { Scope } from '../../../shared/auth/request-context';
import { BadRequestError, DomainError, ServiceUnavailableError } from '../../../shared/errors/domain-error';
import { Id, newId } from '../../../shared/ids/ids';
import type { FileType } from '../domain/file-kind';
import { storageKeyOf } from '../domain/storage-key';
import { FilesConfig } from '../files.config';
import { FileStorage, removeWithRetry } from '../storage/file-storage';
import { sniffContent } from './sniff';
import { UploadMeter } from './upload-meter';

/** A multipart body that could not be read to its end: the client's 400, never a storage failure. */
export function unreadableMultipart(reason: string): BadRequestError {
  return new BadRequestError(`The multipart body could not be read: ${reason}`, 'malformed_multipart');
}

/** What an upload left in storage: the bytes are there, no record yet. */
export interface ReceivedContent {
  fileId: Id<'file'>;
  storageKey: string;
  storageDriver: 'local' | 's3';
  size: number;
  sha256: string;
  mimeType: string;
  type: FileType;
}

/** Streams one upload into storage while measuring it; cleans up after itself on any failure. */
@Injectable()
export class UploadReceiver {
  private readonly logger = new Logger('Files');

  constructor(
    @Inject(FileStorage) private readonly storage: FileStorage,
    @Inject(FilesConfig) private readonly config: FilesConfig,
  ) {}

  async receive(scope: Scope, source: Readable): Promise<ReceivedContent> {
    const fileId = newId('file');
    const storageKey = storageKeyOf(scope.organizationId, scope.mode, fileId);
    const meter = new UploadMeter(this.config.FILES_MAX_BYTES);
    let failure: unknown = null;
    // The request body itself broke off (a multipart part cut short, a client gone): not storage's fault.
    let bodyFailure: Error | null = null;
    meter.on('error', (e) => (failure ??= e));
    source.on('error', (e) => {
      bodyFailure ??= e;
      meter.destroy(e);
    });
    source.pipe(meter);
    try {
      await this.storage.write(storageKey, meter);
    } catch (e) {
      // Let the rest of the request body drain so the client still gets our answer.
      source.unpipe(meter);
      source.resume();
      meter.destroy();
      await this.discard(storageKey);
      const cause = failure ?? e;
      if (cause instanceof DomainError) throw cause;
      if (bodyFailure) throw unreadableMultipart((bodyFailure as Error).message);
      this.logger.error({ err: { message: (e as Error)?.message }, storage: this.storage.driver }, 'file storage write failed');
      throw new ServiceUnavailableError('File storage is unavailable; retry shortly');
    }
    if (bodyFailure) {
      // Every byte of the part arrived, but the form around it was found broken: nothing to keep.
      await this.discard(storageKey);
      throw unreadableMultipart((bodyFailure as Error).message);
    }
    const { mime, type } = await sniffContent(meter.head, meter.headTruncated);
    return { fileId, storageKey, storageDriver: this.storage.driver, size: meter.byteCount, sha256: meter.digest(), mimeType: mime, type };
  }

  /** Removes stored bytes that will get no record; logged, never thrown. */
  async discard(storageKey: string): Promise<void> {
    try {
      await removeWithRetry(this.storage, storageKey);
    } catch (e) {
      this.logger.error({ err: { message: (e as Error)?.message }, storage_key: storageKey }, 'could not remove the bytes of a failed upload');
    }
  }
}
