/** A file's display name: kept as given (it is never used as a path), within these bounds. */
export const MAX_FILE_NAME_LENGTH = 255;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Returns a problem description, or null when the name is acceptable. */
export function fileNameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'must not be empty';
  if (name.length > MAX_FILE_NAME_LENGTH) return `must be at most ${MAX_FILE_NAME_LENGTH} characters`;
  if (CONTROL.test(name)) return 'must not contain control characters';
  return null;
}

/** Escapes LIKE wildcards so a search term matches literally. */
export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
