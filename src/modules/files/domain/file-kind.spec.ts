import { fallbackMimeOf, fileTypeOfMime, isSafeInline } from './file-kind';

describe('fileTypeOfMime', () => {
  it.each([
    ['image/png', 'image'],
    ['image/jpeg', 'image'],
    ['video/mp4', 'video'],
    ['audio/mpeg', 'audio'],
    ['application/pdf', 'document'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
    ['application/vnd.oasis.opendocument.text', 'document'],
    ['application/x-cfb', 'document'],
    ['application/zip', 'archive'],
    ['application/gzip', 'archive'],
    ['application/x-7z-compressed', 'archive'],
    ['application/x-tar', 'archive'],
    // Archives and media with a document vendor's prefix.
    ['application/vnd.ms-cab-compressed', 'archive'],
    ['application/vnd.ms-asf', 'video'],
    ['application/vnd.ms-excel', 'document'],
    ['text/plain', 'general'],
    ['application/octet-stream', 'general'],
    ['application/x-elf', 'general'],
  ])('%s is %s', (mime, type) => {
    expect(fileTypeOfMime(mime)).toBe(type);
  });
});

describe('fallbackMimeOf', () => {
  it('reads UTF-8 text as text/plain', () => {
    expect(fallbackMimeOf(Buffer.from('hello, wörld'), false)).toBe('text/plain');
  });

  it('tolerates a multi-byte character cut at the end of a truncated head', () => {
    const bytes = Buffer.from('abc€');
    expect(fallbackMimeOf(bytes.subarray(0, bytes.length - 1), true)).toBe('text/plain');
    expect(fallbackMimeOf(bytes.subarray(0, bytes.length - 1), false)).toBe('application/octet-stream');
  });

  it('treats NUL bytes, invalid UTF-8 and empty content as binary', () => {
    expect(fallbackMimeOf(Buffer.from([0x61, 0x00, 0x62]), false)).toBe('application/octet-stream');
    expect(fallbackMimeOf(Buffer.from([0xff, 0xfe, 0xfd]), false)).toBe('application/octet-stream');
    expect(fallbackMimeOf(Buffer.alloc(0), false)).toBe('application/octet-stream');
  });
});

describe('isSafeInline', () => {
  it.each([
    ['image/png', true],
    ['application/pdf', true],
    ['image/svg+xml', false],
    ['text/html', false],
    ['application/octet-stream', false],
  ])('%s -> %s', (mime, inline) => {
    expect(isSafeInline(mime)).toBe(inline);
  });
});
