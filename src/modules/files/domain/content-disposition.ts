/**
 * Builds a Content-Disposition header from a stored file name. The name is whatever the client
 * sent, so it is reduced to its last path segment, given an ASCII fallback that can never break
 * out of the quoted string, and carried in full only in the percent-encoded RFC 5987 `filename*`.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {
  const base = lastSegment(wellFormed(name));
  return `${disposition}; filename="${asciiFallback(base)}"; filename*=UTF-8''${encodeRfc5987(stripControls(base) || 'file')}`;
}

function wellFormed(text: string): string {
  // Lone surrogates cannot be percent-encoded; replace them.
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function stripControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

function lastSegment(name: string): string {
  const parts = name.split(/[\\/]+/).filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.length ? parts[parts.length - 1] : '';
}

/** Letters, digits and a few punctuation marks only; everything else becomes `_`. */
export function asciiFallback(name: string): string {
  const ascii = stripControls(name)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ._()+-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 150);
  return ascii === '' || /^_+$/.test(ascii) ? 'file' : ascii;
}

/** RFC 5987 ext-value characters: attr-char stays, everything else is percent-encoded UTF-8. */
export function encodeRfc5987(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
