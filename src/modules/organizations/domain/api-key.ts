import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from '../../../shared/auth/request-context';

/** API keys: `sk_test_` / `sk_live_` followed by 40 random base62 characters. Only a hash is stored. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;
export const DISPLAY_PREFIX_LENGTH = 14;

export function generateApiKey(mode: Mode): string {
  const bytes = randomBytes(64);
  let body = '';
  // 248 is the largest multiple of 62 below 256: rejecting above it keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248) body += ALPHABET[b % 62];
    if (body.length === 40) break;
  }
  while (body.length < 40) body += ALPHABET[randomBytes(1)[0] % 62];
  return `sk_${mode}_${body}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function modeOfKey(key: string): Mode | null {
  const match = KEY_SHAPE.exec(key);
  return match ? (match[1] as Mode) : null;
}

/**
 * Reads the Authorization header: the bare key, `Bearer <key>`, or HTTP Basic with the key as the user
 * and an empty password (`curl -u sk_test_...:`; a key as the password with an empty user is read too).
 */
export function keyFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const trimmed = header.trim();
  const match = /^Bearer\s+(\S+)$/i.exec(trimmed);
  if (match) return match[1];
  const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(trimmed);
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    return (user || password).trim();
  }
  return trimmed;
}
