import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { FileType } from '../../domain/file-kind';

/** A file as lists show it; `url` is added by the HTTP layer (it depends on the public address). */
export interface FileView {
  id: string;
  name: string;
  type: FileType;
  mime_type: string;
  size: number;
  sha256: string;
  created_at: string;
}

export interface FileListView {
  items: FileView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export class ListFilesQuery extends Query<FileListView> {
  constructor(
    readonly scope: Scope,
    readonly filters: { search?: string; type?: FileType },
    readonly limit: number,
    readonly offset: number,
  ) {
    super();
  }
}
