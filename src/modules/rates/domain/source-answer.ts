import { parse as parseJsonText } from 'lossless-json';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MAX_INTEGER_DIGITS, Money, roundMoney } from '../../../shared/money/money';

/** One currency in a source's answer: its USD value and when the source took it, or why it is unusable. */
export type SourceQuote = { usd: Amount; takenAt: Date } | { problem: string };

/** What one source said, per currency; a currency the source does not carry is absent. */
export type SourceAnswer = Partial<Record<Currency, SourceQuote>>;

/** The whole answer of a source is unusable (an error status, an error body, not the documented shape). */
export class SourceAnswerError extends Error {}

/** A JSON number as its source text, so no price ever passes through a JavaScript float. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** Parses a response body, keeping every number's text. Throws SourceAnswerError when it is not JSON. */
export function readJson(body: string): unknown {
  try {
    return parseJsonText(body, null, (text) => new JsonNumber(text));
  } catch (e) {
    throw new SourceAnswerError(`not JSON: ${(e as Error).message}`);
  }
}

/** A scalar of an answer as text for an error message (objects are not spelled out). */
export function textOf(value: unknown): string {
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The largest value the rates table stores: numeric(78,30) keeps 48 integer digits. */
const STORABLE_LIMIT = new Money(10).pow(MAX_INTEGER_DIGITS);

/**
 * Why a rate cannot be stored in the rates table (numeric(78,30), positive), or null when it can: it
 * must be a finite decimal, positive at 30 fractional digits, with at most 48 integer digits.
 */
export function storableRateProblem(rate: Amount): string | null {
  if (!rate.isFinite()) return 'not a finite number';
  if (rate.isNegative() && !rate.isZero()) return 'negative';
  if (rate.isZero()) return 'zero';
  if (rate.gte(STORABLE_LIMIT)) return 'too large';
  if (roundMoney(rate).isZero()) return 'zero at 30 fractional digits';
  return null;
}

/**
 * A price as a source wrote it (decimal text or a JSON number, exponent allowed), read by the decimal
 * library from its text (never a JavaScript number), rounded once at 30 fractional digits; or the
 * problem: not a number, not finite (an exponent beyond the library's range), zero, negative, too large
 * for the rates table.
 */
export function positivePrice(value: unknown): Amount | string {
  const text = value instanceof JsonNumber ? value.text : typeof value === 'string' ? value.trim() : null;
  if (text === null || !DECIMAL.test(text)) return 'not a number';
  const exact = new Money(text);
  const problem = storableRateProblem(exact);
  if (problem) return problem;
  const rounded = roundMoney(exact);
  return storableRateProblem(rounded) ?? rounded;
}

/** The USD value of one unit from a rate given as units per 1 USD: 1 / rate, exact, rounded once. */
export function inverse(unitsPerUsd: Amount | string, exactText: unknown): Amount | string {
  if (typeof unitsPerUsd === 'string') return unitsPerUsd;
  const text = exactText instanceof JsonNumber ? exactText.text : String(exactText).trim();
  const usd = roundMoney(new Money(1).div(new Money(text)));
  return storableRateProblem(usd) ?? usd;
}

/** A quote from a price check: the value with its time, or the problem. */
export function quote(price: Amount | string, takenAt: Date): SourceQuote {
  return typeof price === 'string' ? { problem: price } : { usd: price, takenAt };
}

/**
 * A time a source gives for its price, never later than when its answer arrived (a clock ahead of
 * ours must not make a price look newer than it can be).
 */
export function notAfter(takenAt: Date, fetchedAt: Date): Date {
  return takenAt.getTime() > fetchedAt.getTime() ? fetchedAt : takenAt;
}
