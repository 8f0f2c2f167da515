import { types } from 'pg';

/** PostgreSQL's type id of `timestamp with time zone`. */
export const TIMESTAMPTZ_OID = 1184;

type TextParser = (text: string) => unknown;

const CODE_0 = 48;
const DASH = 45;
const PLUS = 43;
const SPACE = 32;
const COLON = 58;
const DOT = 46;

/** The digit at i, or a large negative number that spoils any sum it enters (then the result is NaN or out of range). */
function digit(text: string, i: number): number {
  const d = text.charCodeAt(i) - CODE_0;
  return d >= 0 && d <= 9 ? d : -1e9;
}

function twoDigits(text: string, i: number): number {
  return digit(text, i) * 10 + digit(text, i + 1);
}

/**
 * Reads a `timestamptz` as PostgreSQL writes it in text (ISO DateStyle), whatever the session's time
 * zone: `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`. Milliseconds are the first three fractional
 * digits (a Date holds no more), as pg's own parser gives them. Returns null for anything else (BC
 * dates, infinity, years before 1000 or after 9999), which the caller hands to pg's own parser.
 */
export function parseTimestamptzText(text: string): Date | null {
  const n = text.length;
  if (
    n < 22 ||
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON
  )
    return null;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hours = twoDigits(text, 11);
  const minutes = twoDigits(text, 14);
  const seconds = twoDigits(text, 17);
  if (!(
    year >= 1000 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 31 &&
    hours >= 0 &&
    hours <= 24 &&
    minutes >= 0 &&
    minutes <= 59 &&
    seconds >= 0 &&
    seconds <= 60
  ))
    return null;
  let i = 19;
  let millis = 0;
  if (text.charCodeAt(i) === DOT) {
    let digits = 0;
    for (i++; i < n; i++) {
      const d = digit(text, i);
      if (d < 0) break;
      if (digits < 3) millis = millis * 10 + d;
      digits++;
    }
    if (digits === 0) return null;
    for (; digits < 3; digits++) millis *= 10;
  }
  const sign = text.charCodeAt(i) === PLUS ? 1 : text.charCodeAt(i) === DASH ? -1 : 0;
  if (sign === 0 || i + 3 > n) return null;
  let offsetSeconds = twoDigits(text, i + 1) * 3600;
  i += 3;
  if (i < n && text.charCodeAt(i) === COLON) {
    offsetSeconds += twoDigits(text, i + 1) * 60;
    i += 3;
    if (i < n && text.charCodeAt(i) === COLON) {
      offsetSeconds += twoDigits(text, i + 1);
      i += 3;
    }
  }
  if (i !== n || !(offsetSeconds >= 0)) return null;
  const time = Date.UTC(year, month - 1, day, hours, minutes, seconds, millis) - sign * offsetSeconds * 1000;
  return Number.isNaN(time) ? null : new Date(time);
}

/**
 * The type parsers of the service's connections: pg's own, but for `timestamptz`, read by
 * parseTimestamptzText (a fifth of the time of pg's regular-expression parser, and a page of invoices
 * carries about a hundred of them), falling back to pg's parser for what it does not read.
 */
export function serviceTypeParsers(): { getTypeParser: typeof types.getTypeParser } {
  const standard = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as TextParser;
  const timestamptz: TextParser = (text) => parseTimestamptzText(text) ?? standard(text);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMPTZ_OID && (format ?? 'text') === 'text' ? timestamptz : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
  };
}
