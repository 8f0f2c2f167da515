import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { scopeOf } from '../../../shared/auth/request-context';
import type { AppRequest } from '../../../shared/http/envelope';
import { ReceivedContent, UploadReceiver } from './upload-receiver';

/** A file part stored by this engine; `recorded` once the files table holds its record (its bytes are then the record's). */
export type UploadedFile = Express.Multer.File & { received: ReceivedContent; recorded?: boolean };

/** A multer storage engine that streams each file part straight into file storage. */
export class StreamingStorageEngine implements StorageEngine {
  constructor(private readonly receiver: UploadReceiver) {}

  _handleFile(req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<UploadedFile>) => void): void {
    const caller = (req as AppRequest).state?.caller;
    if (!caller) {
      callback(new Error('upload without an authenticated caller'));
      return;
    }
    this.receiver.receive(scopeOf(caller), file.stream).then(
      (received) => callback(null, { received, size: received.size }),
      (error) => callback(error),
    );
  }

  _removeFile(_req: Request, file: Partial<UploadedFile>, callback: (error: Error | null) => void): void {
    if (!file.received) {
      callback(null);
      return;
    }
    this.receiver.discard(file.received.storageKey).then(() => callback(null), callback);
  }
}
