import { formatTimestamp } from '../../../shared/time/time';
import type { FileRecord } from '../persistence/file.record';

/**
 * A file as events carry it: the list entry's fields. Without a request there is no address to
 * build on, so `url` is absolute only when PUBLIC_BASE_URL is set, else the path `/files/{id}/content`.
 */
export function fileEventObject(file: FileRecord, publicBaseUrl: string | undefined): Record<string, unknown> {
  const path = `/files/${encodeURIComponent(file.id)}/content`;
  return {
    id: file.id,
    name: file.name,
    url: publicBaseUrl ? `${publicBaseUrl.replace(/\/+$/, '')}${path}` : path,
    type: file.type,
    mime_type: file.mimeType,
    size: file.size,
    sha256: file.sha256,
    created_at: formatTimestamp(file.createdAt),
  };
}
