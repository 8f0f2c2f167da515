// Amounts as the API gives them: decimal strings that stay strings, never floating-point numbers.
// Exact arithmetic on scaled BigInts, rounding on the digits, and grouping in the page's language.
import { cfg } from './page.js';

const SEPARATORS = (() => {
  const parts = new Intl.NumberFormat(cfg.lang).formatToParts(1234567.5);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
})();

/** "1234.500000" -> "1,234.5" (en) / "1.234,5" (de): the exact digits, trailing zeros trimmed. */
export function formatAmount(text) {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const [, sign, whole, frac = ''] = m;
  const fraction = frac.replace(/0+$/, '');
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, SEPARATORS.group);
  return `${sign}${grouped}${fraction ? SEPARATORS.decimal + fraction : ''}`;
}

/** "1234.500000" -> "1234.5": the plain decimal a wallet or a copy button wants. */
export function plainAmount(text) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${m[1]}.${fraction}` : m[1];
}

// Exact decimal arithmetic on the API's strings: scaled BigInts, 30 fractional digits.
const SCALE = 30;
export function toUnits(text) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text));
  if (!m) return 0n;
  return BigInt(m[1] + (m[2] ?? '').padEnd(SCALE, '0').slice(0, SCALE));
}
export function fromUnits(units) {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(SCALE + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`;
}

/**
 * "0.000136986301369863013698630137" at 8 places -> "0.00013699": half-up on the exact digits, or up
 * (away from zero) when `up` is set.
 */
export function roundAmount(text, places, up = false) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const frac = m[2] ?? '';
  if (frac.length <= places) return text;
  const rest = frac.slice(places);
  const carry = up ? /[1-9]/.test(rest) : rest.charCodeAt(0) >= 53;
  const kept = BigInt(m[1] + frac.slice(0, places)) + (carry ? 1n : 0n);
  const digits = kept.toString().padStart(places + 1, '0');
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** An amount to send as the page shows and copies it: the API's, rounded up to 8 places at most. */
export function sendAmount(amount) {
  return roundAmount(amount, 8, true);
}

/** "2026-11-21 10:15:00" (UTC) -> Date. */
export function parseTime(text) {
  return text ? new Date(`${text.replace(' ', 'T')}Z`) : null;
}
