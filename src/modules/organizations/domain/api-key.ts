import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from '../../../shared/auth/request-context';
import { ValidationFailedError } from '../../../shared/errors/domain-error';

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

export const MAX_KEY_NAME_LENGTH = 100;
/** The longest grace period a rolled key may keep working (7 days). */
export const MAX_ROLL_GRACE_SECONDS = 7 * 24 * 3600;

/** A key's label: trimmed, at most MAX_KEY_NAME_LENGTH characters, no control characters. */
export function checkKeyName(name: unknown): string {
  const text = typeof name === 'string' ? name.trim() : name === undefined || name === null ? '' : null;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (text === null || text.length > MAX_KEY_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(text)) {
    throw new ValidationFailedError({ name: `must be text of at most ${MAX_KEY_NAME_LENGTH} characters without control characters` });
  }
  return text;
}

/** A roll's grace period in whole seconds, 0 (the old key stops at once) to MAX_ROLL_GRACE_SECONDS. */
export function checkGraceSeconds(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_ROLL_GRACE_SECONDS) {
    throw new ValidationFailedError({ grace_seconds: `must be a whole number of seconds from 0 to ${MAX_ROLL_GRACE_SECONDS} (7 days)` });
  }
  return n;
}

/** Whether a key whose grace ends at `expiresAt` (null: no end) is still accepted at `now`. */
export function keyAccepted(expiresAt: Date | null, now: Date): boolean {
  return expiresAt === null || expiresAt.getTime() > now.getTime();
}

/** How often, at most, a key's last-used time is written (per key, per process). */
export const USAGE_WRITE_INTERVAL_MS = 60_000;

/**
 * The last-used times waiting to be written: a request only notes its key here (a map update); a
 * periodic flush writes the notes in one statement. A key is noted again only once
 * USAGE_WRITE_INTERVAL_MS has passed since its last note was taken for writing, so a busy key costs
 * one write a minute, not one per request.
 */
export class UsageNotes {
  private readonly pending = new Map<string, Date>();
  private readonly written = new Map<string, number>();

  constructor(private readonly maxKeys = 100_000) {}

  note(keyId: string, at: Date): void {
    const last = this.written.get(keyId);
    if (last !== undefined && at.getTime() - last < USAGE_WRITE_INTERVAL_MS) return;
    if (!this.pending.has(keyId) && this.pending.size >= this.maxKeys) return;
    this.pending.set(keyId, at);
  }

  /** The notes to write now (and forgets them); each key's time starts its next interval. */
  take(): Array<{ keyId: string; at: Date }> {
    const out = [...this.pending].map(([keyId, at]) => ({ keyId, at }));
    this.pending.clear();
    for (const { keyId, at } of out) this.written.set(keyId, at.getTime());
    if (this.written.size > this.maxKeys) this.written.clear();
    return out;
  }

  /** Puts notes back after a failed write (unless newer ones came meanwhile). */
  restore(notes: Array<{ keyId: string; at: Date }>): void {
    for (const { keyId, at } of notes) {
      this.written.delete(keyId);
      if (!this.pending.has(keyId)) this.pending.set(keyId, at);
    }
  }
}
