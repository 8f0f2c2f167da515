import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals short secrets for storage (webhook signing secrets, stored idempotent answers, wallet
 * keys): AES-256-GCM with a random 96-bit nonce, so a sealed value reveals nothing and any change
 * to it (or to its context) makes open() fail.
 *
 * Sealed form: `sealed:v1:<key id>:<base64url(nonce | tag | ciphertext)>`. The key id (8 hex
 * characters of a hash of the key) says which key sealed a value, so keys can rotate: the box
 * seals with its current key and opens with the current key or any older one it was given.
 *
 * `context` binds a sealed value to where it is stored (e.g. the row's id): a value copied to
 * another row does not open there. Seal and open with the same context.
 *
 * Values stored before sealing existed are plain text: open() returns a value without the
 * `sealed:` prefix unchanged, and needsSealing() tells the caller to re-seal it (and values
 * sealed with an older key).
 */
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly byId = new Map<string, Buffer>();

  constructor(currentKey: Buffer, olderKeys: readonly Buffer[] = []) {
    this.current = { id: keyId(currentKey), key: checkKey(currentKey) };
    for (const key of [currentKey, ...olderKeys]) this.byId.set(keyId(key), checkKey(key));
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plain: string, context = ''): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.current.id}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The plain text of a sealed value (or a legacy plain value as it is). Throws when it cannot be opened. */
  open(stored: string, context = ''): string {
    if (!isSealed(stored)) return stored;
    const [id, payload] = stored.slice(PREFIX.length).split(':');
    const key = this.byId.get(id);
    if (!key) {
      throw new SecretBoxError(
        `sealed with key ${id}, which is neither SECRETS_KEY nor in SECRETS_KEYS_OLD (configure that key again; if it is lost for good, ` +
          `\`cli secrets:forget-key --key-id ${id}\` gives up what it sealed: docs/production.md, "A lost key")`,
      );
    }
    const raw = Buffer.from(payload ?? '', 'base64url');
    if (raw.length < 28) throw new SecretBoxError('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`sealed value does not open with key ${id} (changed, or stored under another context)`);
    }
  }

  /** Whether values sealed with key `id` open here (it is SECRETS_KEY or listed in SECRETS_KEYS_OLD). */
  holds(id: string): boolean {
    return this.byId.has(id);
  }

  /** True for a plain (legacy) value and for one sealed with an older key: it should be sealed again. */
  needsSealing(stored: string): boolean {
    return !stored.startsWith(`${PREFIX}${this.current.id}:`);
  }
}

export class SecretBoxError extends Error {}

/** A key id as sealed values carry it: 8 lowercase hex characters. */
export const KEY_ID_SHAPE = /^[0-9a-f]{8}$/;

/** The start of every value sealed with key `id`, as a LIKE pattern (the id is hex: nothing to escape). */
export function sealedWithPattern(id: string): string {
  if (!KEY_ID_SHAPE.test(id)) throw new SecretBoxError(`not a key id: ${JSON.stringify(id)}`);
  return `${PREFIX}${id}:%`;
}

const PREFIX = 'sealed:v1:';

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('secret-box key id\n').update(key).digest('hex').slice(0, 8);
}

function checkKey(key: Buffer): Buffer {
  if (key.length !== 32) throw new SecretBoxError('a key must be 32 bytes');
  return key;
}

/** A key as written in the environment: 32 bytes as base64 (44 characters) or hex (64 characters). */
export function parseSecretKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === 32) return key;
  }
  throw new SecretBoxError('must be 32 random bytes written as base64 (44 characters, e.g. `openssl rand -base64 32`) or hex (64 characters)');
}

/**
 * The fixed key used when SECRETS_KEY is not set outside production. It is public (derived from
 * this text), so values sealed with it are protected from nothing: development and tests only.
 */
export const DEVELOPMENT_SECRETS_KEY = createHash('sha256').update('invoicing-payments-api development secrets key (public, never for production)').digest();

/** The box for a configuration: SECRETS_KEY (or the development key) plus SECRETS_KEYS_OLD. */
export function secretBoxFromSettings(settings: { SECRETS_KEY?: string; SECRETS_KEYS_OLD?: string }): SecretBox {
  const current = settings.SECRETS_KEY ? parseSecretKey(settings.SECRETS_KEY) : DEVELOPMENT_SECRETS_KEY;
  const older = (settings.SECRETS_KEYS_OLD ?? '')
    .split(',')
    .filter((t) => t.trim())
    .map(parseSecretKey);
  return new SecretBox(current, older);
}
