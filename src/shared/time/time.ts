/** '00' to '99'. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * Timestamps leave the service as UTC `YYYY-MM-DD HH:MM:SS` (interface "General conventions").
 * Built from the date's fields: a page of invoices renders about a hundred of them, and this is a
 * third of the cost of cutting up `toISOString()`, which years outside 1000-9999 (and invalid
 * dates, which throw) still go through.
 */
export function formatTimestamp(date: Date): string;
export function formatTimestamp(date: Date | null | undefined): string | null;
export function formatTimestamp(date: Date | null | undefined): string | null {
  if (!date) return null;
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString().slice(0, 19).replace('T', ' ');
  return (
    `${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]} ` +
    `${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}`
  );
}

const SQL_STYLE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

function validDate(y: number, m: number, d: number, hh = 0, mm = 0, ss = 0): Date | null {
  const date = new Date(Date.UTC(y, m - 1, d, hh, mm, ss));
  const same =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === m - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === hh &&
    date.getUTCMinutes() === mm &&
    date.getUTCSeconds() === ss;
  return same ? date : null;
}

export type BoundSide = 'from' | 'to';

/**
 * Reads a list filter bound. Accepts `YYYY-MM-DD HH:MM:SS` (UTC), `YYYY-MM-DD` (the whole day:
 * its first instant as a lower bound, its last as an upper bound) and ISO 8601 with a zone.
 * Bounds are inclusive. Returns null for anything else.
 */
export function parseTimeBound(text: string, side: BoundSide): Date | null {
  let m = SQL_STYLE.exec(text);
  if (m) {
    const date = validDate(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
    if (date && side === 'to') date.setUTCMilliseconds(999);
    return date;
  }
  m = DAY_ONLY.exec(text);
  if (m) {
    const date = validDate(+m[1], +m[2], +m[3]);
    if (date && side === 'to') date.setUTCHours(23, 59, 59, 999);
    return date;
  }
  if (ISO_8601.test(text)) {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}
