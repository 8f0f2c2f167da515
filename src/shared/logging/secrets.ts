/**
 * Telling text that grants access (a private key, a recovery phrase, one of our keys, secrets or claim
 * tokens) from ordinary names, so that neither the logs nor an error answer repeat it. A client that
 * sends a key as a field NAME (a pasted key where the field's name belongs) gets the field named
 * `<redacted field>` instead.
 */

/** How a field whose name looks like a secret is named in `validator` and in error messages. */
export const REDACTED_FIELD = '<redacted field>';

/** What a redacted part of a logged URL or message reads. */
export const REDACTED = '[redacted]';

/** Our own secrets and tokens: API keys, webhook signing secrets, refund claim tokens. */
const OUR_SECRETS = /(?:sk_(?:test|live)_[A-Za-z0-9]{8,}|whsec_[A-Za-z0-9+/=_-]{16,}|rc_[A-Za-z0-9_-]{20,})/;
/** Extended private keys of every version wallets write (BIP32, SLIP-132, Litecoin, Dogecoin), whole or cut short. */
const EXTENDED_PRIVATE = /(?:[xyztuvYZUV]prv|[LM]tpv|ttpv|dgpv)[1-9A-HJ-NP-Za-km-z]{16,}/;
/** A long base58 run: a WIF private key (51-52 characters), an extended key (111). */
const BASE58_RUN = /[1-9A-HJ-NP-Za-km-z]{50,}/;
/** A long hex run: a raw private key (64 hex digits), a seed; an EVM address (`0x` and 40) is public. */
const HEX_RUN = /(0x)?([0-9a-fA-F]{32,})/g;
/** A long run of token characters. */
const TOKEN_RUN = /[A-Za-z0-9+/=_-]{32,}/g;
/** Words of a recovery phrase (BIP39 has 12 to 24, each of 3 to 8 lower-case letters), however they are joined. */
const PHRASE_WORDS = 12;
const PHRASE_WORD = /^[a-z]{3,8}$/;

function hexSecret(text: string): boolean {
  for (const [, prefix, digits] of text.matchAll(HEX_RUN)) if (!(prefix && digits.length === 40)) return true;
  return false;
}

/** A run that mixes lower case, upper case and digits, as random tokens (base64, base62) do and names do not. */
function highEntropyRun(text: string): boolean {
  for (const [run] of text.matchAll(TOKEN_RUN)) {
    if (/^0x[0-9a-fA-F]{40}$/.test(run)) continue; // an EVM address (its checksum mixes the case) is public
    if (/[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run)) return true;
  }
  return false;
}

/** Whether some text looks like (or holds) a secret: a key, a recovery phrase, a token. */
export function looksSecret(text: string): boolean {
  if (OUR_SECRETS.test(text) || EXTENDED_PRIVATE.test(text) || BASE58_RUN.test(text) || hexSecret(text) || highEntropyRun(text)) return true;
  const words = text.trim().split(/[\s,._-]+/);
  return words.length >= PHRASE_WORDS && words.every((w) => PHRASE_WORD.test(w));
}

/** A field path (`items.0.price`) with every part that looks like a secret replaced by `<redacted field>`. */
export function safeFieldPath(path: string): string {
  if (!looksSecret(path)) return path;
  if (!path.includes('.')) return REDACTED_FIELD;
  const parts = path.split('.').map((part) => (looksSecret(part) ? REDACTED_FIELD : part));
  // A secret that itself held dots (a phrase written with them) is not split apart.
  const joined = parts.join('.');
  return looksSecret(joined) ? REDACTED_FIELD : joined;
}

const SECRET_NAME_NOTE = 'its name looks like a private key, recovery phrase or token, so it is not repeated; never send one';

/**
 * A `validator` map whose keys are safe to answer and log: a key path holding a secret-looking
 * part is renamed `<redacted field>` and its message says why.
 */
export function safeFieldErrors(fields: Record<string, string>): Record<string, string> {
  let changed = false;
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(fields)) {
    const safe = safeFieldPath(path);
    if (safe === path) {
      out[path] = message;
      continue;
    }
    changed = true;
    out[safe] = `${message} (${SECRET_NAME_NOTE})`;
  }
  return changed ? out : fields;
}

/**
 * Paths whose segment is a bearer capability: the refund claim token (`/refund_claims/<token>`; the
 * page's assets under `/refund_claims/assets/` are not tokens) and the console's one-time link
 * (`/console/link/<token>`, which sets a member's password), whatever characters the token happens to have,
 * and whatever the path's case (routes match it in any case).
 */
const BEARER_PATH = /(\/refund_claims\/(?!assets\/)|\/console\/link\/)[^/?#\s"']+/gi;

/**
 * Text safe to write to the log: a URL or an error message with the token of a `/refund_claims/...`
 * or `/console/link/...` path, and any other secret-looking run, replaced by `[redacted]`.
 */
export function loggableText(text: string): string {
  const paths = text.replace(BEARER_PATH, `$1${REDACTED}`);
  if (!looksSecret(paths)) return paths;
  return paths
    .split(/([\s/?&=#"',;:()[\]{}]+)/)
    .map((part) => (looksSecret(part) ? REDACTED : part))
    .join('');
}
