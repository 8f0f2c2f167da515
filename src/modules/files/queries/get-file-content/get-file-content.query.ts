import { Query } from '@nestjs/cqrs';
import type { Readable } from 'node:stream';
import type { Scope } from '../../../../shared/auth/request-context';

export interface FileContent {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  body: Readable;
}

/** The bytes of one file of the caller's organization and mode. */
export class GetFileContentQuery extends Query<FileContent> {
  constructor(
    readonly scope: Scope,
    readonly fileId: string,
  ) {
    super();
  }
}
