import { asciiFallback, contentDisposition, encodeRfc5987 } from './content-disposition';

describe('contentDisposition', () => {
  it('carries a plain name in both forms', () => {
    expect(contentDisposition('attachment', 'report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  });

  it('keeps only the last path segment of a traversal name', () => {
    expect(contentDisposition('inline', '../../etc/passwd')).toBe(`inline; filename="passwd"; filename*=UTF-8''passwd`);
    expect(contentDisposition('inline', '..\\..\\boot.ini')).toBe(`inline; filename="boot.ini"; filename*=UTF-8''boot.ini`);
  });

  it('cannot be broken out of by quotes, semicolons or line breaks', () => {
    const header = contentDisposition('attachment', 'a"; filename="evil.html\r\nSet-Cookie: x=1');
    expect(header).not.toMatch(/[\r\n]/);
    const quoted = /filename="([^"]*)"/.exec(header)?.[1];
    expect(quoted).toBe('a_ filename_evil.htmlSet-Cookie_ x_1');
    expect(header.match(/"/g)).toHaveLength(2);
    expect(header).toContain(`filename*=UTF-8''a%22%3B%20filename%3D%22evil.htmlSet-Cookie%3A%20x%3D1`);
  });

  it('encodes non-ASCII names per RFC 5987 with a transliterated fallback', () => {
    expect(contentDisposition('attachment', 'Résumé 履歴書.pdf')).toBe(
      `attachment; filename="Resume _.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E5%B1%A5%E6%AD%B4%E6%9B%B8.pdf`,
    );
  });

  it('falls back to "file" when nothing printable is left', () => {
    expect(contentDisposition('attachment', '../..')).toBe(`attachment; filename="file"; filename*=UTF-8''file`);
    expect(asciiFallback('日本')).toBe('file');
  });

  it('survives lone surrogates', () => {
    expect(() => contentDisposition('attachment', 'a\uD800b')).not.toThrow();
  });
});

describe('encodeRfc5987', () => {
  it('percent-encodes the characters encodeURIComponent leaves alone but RFC 5987 forbids', () => {
    expect(encodeRfc5987("it's (1)*")).toBe('it%27s%20%281%29%2A');
  });
});
