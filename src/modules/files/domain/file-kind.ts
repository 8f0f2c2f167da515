/** The six kinds a stored file is filed under; always derived from the content, never from the client. */
export const FILE_TYPES = ['image', 'video', 'audio', 'document', 'archive', 'general'] as const;
export type FileType = (typeof FILE_TYPES)[number];

const DOCUMENT_MIMES = new Set([
  'application/pdf',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/x-cfb',
  'application/epub+zip',
  'application/x-mobipocket-ebook',
  'application/postscript',
  'application/eps',
  'application/x-indesign',
]);

const DOCUMENT_PREFIXES = ['application/vnd.openxmlformats-officedocument.', 'application/vnd.oasis.opendocument.', 'application/vnd.ms-'];

const ARCHIVE_MIMES = new Set([
  'application/zip',
  'application/x-tar',
  'application/gzip',
  'application/x-gzip',
  'application/x-bzip2',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'application/vnd.rar',
  'application/x-xz',
  'application/zstd',
  'application/x-lzip',
  'application/x-compress',
  'application/x-lzh-compressed',
  'application/x-cpio',
  'application/x-ar',
  'application/x-unix-archive',
  'application/x-apple-diskimage',
  'application/vnd.ms-cab-compressed',
  'application/x-lz4',
  'application/x-lzma',
  'application/x-iso9660-image',
  'application/java-archive',
]);

/** Maps a detected media type to one of the six kinds. */
export function fileTypeOfMime(mime: string): FileType {
  const m = mime.toLowerCase();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  // Archives first: some carry a document vendor's prefix (Microsoft's CAB is application/vnd.ms-cab-compressed).
  if (ARCHIVE_MIMES.has(m)) return 'archive';
  // Windows Media's container when file-type cannot tell its streams (else audio/x-ms-asf or video/x-ms-asf).
  if (m === 'application/vnd.ms-asf') return 'video';
  if (DOCUMENT_MIMES.has(m) || DOCUMENT_PREFIXES.some((p) => m.startsWith(p))) return 'document';
  return 'general';
}

export const TEXT_MIME = 'text/plain';
export const BINARY_MIME = 'application/octet-stream';

/**
 * For content no magic number matched: UTF-8 text without NUL bytes is text/plain, anything else
 * opaque binary. `truncated` says the head is a prefix of a longer file, so a multi-byte character
 * cut at its end does not count against it.
 */
export function fallbackMimeOf(head: Uint8Array, truncated: boolean): string {
  if (head.length === 0) return BINARY_MIME;
  if (head.includes(0)) return BINARY_MIME;
  let bytes = head;
  if (truncated) {
    // Drop an incomplete UTF-8 sequence at the very end (at most 3 bytes).
    let cut = bytes.length;
    for (let i = 1; i <= 3 && i <= bytes.length; i++) {
      const b = bytes[bytes.length - i];
      if ((b & 0xc0) === 0x80) continue; // continuation byte
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (need > i) cut = bytes.length - i;
      break;
    }
    bytes = bytes.subarray(0, cut);
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return TEXT_MIME;
  } catch {
    return BINARY_MIME;
  }
}

/** Media types a browser may show in place; everything else is served as an attachment. */
export function isSafeInline(mime: string): boolean {
  const m = mime.toLowerCase();
  if (m === 'image/svg+xml') return false;
  return m.startsWith('image/') || m.startsWith('video/') || m.startsWith('audio/') || m === 'application/pdf' || m === TEXT_MIME;
}
