import { BINARY_MIME, fallbackMimeOf, fileTypeOfMime, FileType } from '../domain/file-kind';

type FileTypeModule = typeof import('file-type');
let fileTypeModule: Promise<FileTypeModule> | null = null;

/**
 * Detects the media type from the content's first bytes (magic numbers), never from the name or
 * the type the client claimed. Text and unrecognised content fall back to text/plain or
 * application/octet-stream, both filed as `general`.
 */
export async function sniffContent(head: Buffer, truncated: boolean): Promise<{ mime: string; type: FileType }> {
  fileTypeModule ??= import('file-type');
  let mime: string | undefined;
  if (head.length > 0) {
    try {
      mime = (await (await fileTypeModule).fileTypeFromBuffer(head))?.mime;
    } catch {
      mime = undefined;
    }
  }
  mime ??= fallbackMimeOf(head, truncated) ?? BINARY_MIME;
  return { mime, type: fileTypeOfMime(mime) };
}
