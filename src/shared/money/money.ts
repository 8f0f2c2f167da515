import Decimal from 'decimal.js';

/**
 * Exact decimal arithmetic for every amount and rate. Amounts carry up to 30 fractional digits
 * (18-decimal tokens times exchange rates need the room) and up to 48 integer digits, which is
 * what PostgreSQL numeric(78,30) stores. Nothing here ever goes through a JavaScript number.
 */
export const Money = Decimal.clone({
  precision: 200,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -1000,
  toExpPos: 1000,
});
export type Amount = Decimal;

export const MONEY_SCALE = 30;
export const MAX_INTEGER_DIGITS = 48;

export const ZERO: Amount = new Money(0);

const DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?$/;

export type AmountProblem = 'not_a_decimal' | 'negative' | 'too_many_fraction_digits' | 'too_large';

/** Checks decimal text as a client sent it. Returns the problem, or null when the text is a valid amount. */
export function amountProblem(text: string): AmountProblem | null {
  if (text.startsWith('-')) return DECIMAL_TEXT.test(text.slice(1)) ? 'negative' : 'not_a_decimal';
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return 'not_a_decimal';
  if ((match[2]?.length ?? 0) > MONEY_SCALE) return 'too_many_fraction_digits';
  if (match[1].replace(/^0+(?=\d)/, '').length > MAX_INTEGER_DIGITS) return 'too_large';
  return null;
}

export const AMOUNT_PROBLEM_MESSAGES: Record<AmountProblem, string> = {
  not_a_decimal: 'must be a decimal number written with digits and an optional fractional part (no exponent)',
  negative: 'must not be negative',
  too_many_fraction_digits: `must have at most ${MONEY_SCALE} fractional digits`,
  too_large: `must have at most ${MAX_INTEGER_DIGITS} integer digits`,
};

export class InvalidAmountError extends Error {
  constructor(
    readonly problem: AmountProblem,
    text: string,
  ) {
    super(`Invalid amount "${text}": ${AMOUNT_PROBLEM_MESSAGES[problem]}`);
  }
}

/** Parses a validated decimal string (or a value read from the database) into an exact amount. */
export function parseAmount(text: string): Amount {
  const problem = amountProblem(text);
  if (problem) throw new InvalidAmountError(problem, text);
  return new Money(text);
}

/** Reads a numeric column value as PostgreSQL returns it (text, possibly negative for deltas). */
export function fromDb(text: string): Amount {
  return new Money(text);
}

/** The single rounding rule of the service: half-up at 30 fractional digits. */
export function roundMoney(amount: Amount): Amount {
  return amount.toDecimalPlaces(MONEY_SCALE, Decimal.ROUND_HALF_UP);
}

/** Renders an amount the way every response shows it: exactly 30 fractional digits. */
export function renderAmount(amount: Amount): string {
  return amount.toFixed(MONEY_SCALE, Decimal.ROUND_HALF_UP);
}

/** Converts between currencies through their USD rates: amount * from / to, rounded once. */
export function convert(amount: Amount, fromRateUsd: Amount, toRateUsd: Amount): Amount {
  return roundMoney(amount.mul(fromRateUsd).div(toRateUsd));
}

export function sumAmounts(amounts: Iterable<Amount>): Amount {
  let total: Amount = ZERO;
  for (const a of amounts) total = total.add(a);
  return total;
}
