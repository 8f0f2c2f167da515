import { parse as parseLossless } from 'lossless-json';

/**
 * A JSON number that cannot be held exactly by a JavaScript number (a fraction, or an integer
 * beyond 2^53). The body parser keeps its source text so money fields read it exactly; every
 * other validator sees an object and rejects it as the wrong type.
 */
export class JsonNumberText {
  constructor(readonly text: string = '') {}
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

/** A JSON number as the parser keeps it: a safe integer as a number, anything else (a fraction, a big integer) as its text. */
function parseNumber(text: string): number | JsonNumberText {
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  return new JsonNumberText(text);
}

/**
 * Parses JSON without ever turning a fractional number into a float: money written as a JSON number reaches
 * the service exactly as it was written (JsonNumberText). Throws on malformed JSON, as JSON.parse does.
 */
export function parseJsonExactly(text: string): unknown {
  return parseLossless(text, null, parseNumber);
}
