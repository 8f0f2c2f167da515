import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import multer, { MulterError } from 'multer';
import { catchError, from, Observable, switchMap } from 'rxjs';
import { BadRequestError, DomainError, PayloadTooLargeError, ValidationFailedError } from '../../../shared/errors/domain-error';
import type { AppRequest } from '../../../shared/http/envelope';
import { assertNoReservedKeys } from '../../../shared/http/json-safety';
import { safeFieldPath } from '../../../shared/logging/secrets';
import { FilesConfig } from '../files.config';
import { StreamingStorageEngine, UploadedFile } from './streaming-storage-engine';
import { unreadableMultipart, UploadReceiver } from './upload-receiver';

export const FILE_FIELD = 'file';

/**
 * Reads the multipart body of POST /files/upload, streaming the `file` part into storage (see
 * StreamingStorageEngine), and leaves the text fields in `req.body`. If anything after that fails
 * before the file is recorded (validation of the other fields, the database insert), the stored bytes
 * are removed again, so a failed upload leaves neither a record nor bytes behind; a failure after the
 * record committed leaves both.
 */
@Injectable()
export class FileUploadInterceptor implements NestInterceptor {
  private readonly parse: ReturnType<ReturnType<typeof multer>['single']>;

  constructor(
    @Inject(UploadReceiver) private readonly receiver: UploadReceiver,
    @Inject(FilesConfig) private readonly config: FilesConfig,
  ) {
    this.parse = multer({
      storage: new StreamingStorageEngine(receiver),
      defParamCharset: 'utf8',
      // Text fields are flat (`name`): a bracketed name (`x[4294967294]`) would make the parser build an array of
      // that length, which every later walk of the body (reserved names, the request's fingerprint) visits.
      limits: { files: 1, fileSize: config.FILES_MAX_BYTES, fields: 10, fieldSize: 16 * 1024, fieldNameSize: 100, parts: 12, fieldNestingDepth: 0 },
    }).single(FILE_FIELD);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AppRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const parsed = new Promise<void>((resolve, reject) => {
      this.parse(req, res, (error?: unknown) => {
        if (error) return reject(this.translate(error));
        // A text field named __proto__, constructor or prototype is a 400 naming it, as in a JSON body: the
        // validation below cannot see such a name (the object mapper skips it), so it would pass unnoticed.
        try {
          assertNoReservedKeys(req.body);
          resolve();
        } catch (refusal) {
          const stored = (req.file as UploadedFile | undefined)?.received;
          (stored ? this.receiver.discard(stored.storageKey) : Promise.resolve()).then(
            () => reject(refusal as Error),
            () => reject(refusal as Error),
          );
        }
      });
    });
    return from(parsed).pipe(
      switchMap(() => {
        const uploaded = req.file as UploadedFile | undefined;
        return next.handle().pipe(
          // A retry answered from its Idempotency-Key stores nothing new: drop the bytes it sent.
          switchMap((result) =>
            from(
              (async () => {
                if (res.getHeader('Idempotent-Replayed') && uploaded?.received) await this.receiver.discard(uploaded.received.storageKey);
                return result;
              })(),
            ),
          ),
          // A failure before the file was recorded leaves nothing behind; one after it (storing an idempotent
          // answer) keeps the bytes its committed record names.
          catchError((error: unknown) =>
            from(
              (async () => {
                if (uploaded?.received && !uploaded.recorded) await this.receiver.discard(uploaded.received.storageKey);
                throw error;
              })(),
            ),
          ),
        );
      }),
    );
  }

  private translate(error: unknown): DomainError {
    if (error instanceof DomainError) return error;
    if (error instanceof MulterError) {
      const max = this.config.FILES_MAX_BYTES;
      // (LIMIT_FIELD_NESTING is newer than the type definitions' list of codes.)
      switch (error.code as string) {
        case 'LIMIT_FILE_SIZE':
          return new PayloadTooLargeError(`The file is larger than the limit of ${max} bytes`, { file: `must be at most ${max} bytes` });
        case 'LIMIT_FILE_COUNT':
          return new ValidationFailedError({ file: 'send exactly one file' });
        case 'LIMIT_UNEXPECTED_FILE':
          return new ValidationFailedError({
            [FILE_FIELD]: `send the file in the multipart field "${FILE_FIELD}" (got "${safeFieldPath(error.field ?? '')}")`,
          });
        case 'LIMIT_FIELD_NESTING':
          return new ValidationFailedError({
            [safeFieldPath(error.field ?? 'body')]: 'is not a field of an upload: send the file in "file" and its display name in a plain text field "name"',
          });
        case 'LIMIT_FIELD_VALUE':
          return new ValidationFailedError({ [error.field ?? 'body']: 'is too long' });
        default:
          return new BadRequestError(`The multipart body was refused: ${error.message}`, 'malformed_multipart');
      }
    }
    const message = error instanceof Error ? error.message : String(error);
    return unreadableMultipart(message);
  }
}
