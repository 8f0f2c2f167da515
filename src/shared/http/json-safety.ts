import { ValidationFailedError } from '../errors/domain-error';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';
const SURROGATE_MESSAGE = 'must be valid Unicode text: a lone surrogate (an unpaired \\ud800-\\udfff escape) cannot be stored';

/** Any surrogate code unit, paired or not: a closer look only when one is there. */
const SURROGATE = /[\ud800-\udfff]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why PostgreSQL could not store the text (text and jsonb refuse NUL, jsonb an unpaired surrogate), or null. */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  return SURROGATE.test(text) && LONE_SURROGATE.test(text) ? SURROGATE_MESSAGE : null;
}

/**
 * The first string or key PostgreSQL could not store (a NUL character; an unpaired UTF-16 surrogate, which
 * a JSON escape such as `\ud800` makes and jsonb refuses): its path, e.g. `items.0.name`, and why; or null.
 */
export function findUnstorable(value: unknown, at = '', depth = 0): { path: string; message: string } | null {
  if (typeof value === 'string') {
    const message = unstorable(value);
    return message ? { path: at || 'body', message } : null;
  }
  if (!value || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return null;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    const path = at ? `${at}.${key}` : key;
    const message = unstorable(key);
    if (message) return { path, message };
    const found = findUnstorable(child, path, depth + 1);
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

/** Throws the 400 naming the field when a value holds text PostgreSQL cannot store (a NUL, a lone surrogate). */
export function assertStorableText(value: unknown, at = ''): void {
  const found = findUnstorable(value, at);
  if (found) throw new ValidationFailedError({ [found.path]: found.message });
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
