import { ValidationFailedError } from '../errors/domain-error';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/**
 * The path of the first string or key holding a NUL character (which PostgreSQL text cannot
 * store), e.g. `items.0.name`, or null when there is none.
 */
export function findNul(value: unknown, at = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at || 'body' : null;
  if (!value || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return null;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const path = at ? `${at}.${key}` : key;
    if (key.includes('\u0000')) return path;
    const found = findNul(child, path, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Keys a JavaScript object cannot hold as plain data: the validators and the object mapper skip
 * them, so a body field or a metadata key with one of these names would vanish unseen.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export const RESERVED_KEY_MESSAGE = 'is a reserved name, not accepted as a field or a key';

/** The paths of every key named `__proto__`, `constructor` or `prototype`, at any depth (at most `limit`). */
export function findReservedKeys(value: unknown, at = '', depth = 0, found: string[] = [], limit = 20): string[] {
  if (!value || typeof value !== 'object' || depth > MAX_JSON_DEPTH || found.length >= limit) return found;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const path = at ? `${at}.${key}` : key;
    if (!Array.isArray(value) && RESERVED_KEYS.has(key)) {
      if (found.length < limit) found.push(path);
      continue;
    }
    findReservedKeys(child, path, depth + 1, found, limit);
  }
  return found;
}

/** Throws the 400 naming each reserved key of a body (they would otherwise be dropped without a word). */
export function assertNoReservedKeys(value: unknown): void {
  const paths = findReservedKeys(value);
  if (paths.length) throw new ValidationFailedError(Object.fromEntries(paths.map((p) => [p, RESERVED_KEY_MESSAGE])));
}

/** Throws the 400 naming the field when a value holds a NUL character. */
export function assertStorableText(value: unknown, at = ''): void {
  const path = findNul(value, at);
  if (path) throw new ValidationFailedError({ [path]: NUL_MESSAGE });
}

/**
 * How deep a JSON text nests (brackets outside strings), stopping early once past `limit`: a body
 * nested thousands deep would otherwise exhaust the stack of the parser or the validators.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}
