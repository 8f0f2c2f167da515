import { amountProblem, convert, fromDb, InvalidAmountError, MONEY_SCALE, parseAmount, renderAmount, roundMoney, sumAmounts } from './money';
import { canonicalCurrency } from './currency';

const zeros = (n: number) => '0'.repeat(n);

describe('amountProblem / parseAmount', () => {
  it.each(['0', '1', '10.5', '0.000000000000000000000000000001', `123.${'9'.repeat(30)}`, '007.10', `${'9'.repeat(48)}.5`])('accepts %s', (text) => {
    expect(amountProblem(text)).toBeNull();
    expect(parseAmount(text).toFixed()).toBe(parseAmount(text).toFixed());
  });

  it.each([
    ['1e5', 'not_a_decimal'],
    ['1E-3', 'not_a_decimal'],
    ['1.5e2', 'not_a_decimal'],
    ['-1', 'negative'],
    ['-0.5', 'negative'],
    ['-abc', 'not_a_decimal'],
    [`0.${'1'.repeat(31)}`, 'too_many_fraction_digits'],
    [`1.${zeros(31)}`, 'too_many_fraction_digits'],
    [`1${zeros(48)}`, 'too_large'],
    ['', 'not_a_decimal'],
    ['abc', 'not_a_decimal'],
    ['1,5', 'not_a_decimal'],
    ['1.', 'not_a_decimal'],
    ['.5', 'not_a_decimal'],
    ['+1', 'not_a_decimal'],
    [' 1', 'not_a_decimal'],
    ['1 ', 'not_a_decimal'],
    ['0x10', 'not_a_decimal'],
    ['Infinity', 'not_a_decimal'],
    ['NaN', 'not_a_decimal'],
    ['١٢', 'not_a_decimal'],
  ])('rejects %p as %s', (text, problem) => {
    expect(amountProblem(text)).toBe(problem);
    expect(() => parseAmount(text)).toThrow(InvalidAmountError);
  });

  it('allows 48 integer digits after leading zeros are dropped', () => {
    expect(amountProblem(`000${'9'.repeat(48)}`)).toBeNull();
  });
});

describe('renderAmount', () => {
  it.each([
    ['0', `0.${zeros(30)}`],
    ['1', `1.${zeros(30)}`],
    ['10.5', `10.5${zeros(29)}`],
    ['0.000000000000000000000000000001', `0.${zeros(29)}1`],
    [`${'9'.repeat(48)}.${'9'.repeat(30)}`, `${'9'.repeat(48)}.${'9'.repeat(30)}`],
    ['123456789012345678901234567890.123456789012345678901234567890', '123456789012345678901234567890.123456789012345678901234567890'],
  ])('renders %s with exactly 30 fractional digits', (text, expected) => {
    const out = renderAmount(parseAmount(text));
    expect(out).toBe(expected);
    expect(out.split('.')[1]).toHaveLength(MONEY_SCALE);
  });

  it('never switches to exponent notation', () => {
    expect(renderAmount(fromDb('1e-25'))).toBe(`0.${zeros(24)}1${zeros(5)}`);
    expect(renderAmount(fromDb('1e40'))).toBe(`1${zeros(40)}.${zeros(30)}`);
  });

  it('reads negative deltas from the database', () => {
    expect(renderAmount(fromDb('-2.5'))).toBe(`-2.5${zeros(29)}`);
  });
});

describe('roundMoney and convert (half-up at the 30th fractional digit)', () => {
  it.each([
    [`0.${zeros(29)}14`, `0.${zeros(29)}1`],
    [`0.${zeros(29)}15`, `0.${zeros(29)}2`],
    [`0.${zeros(29)}149999`, `0.${zeros(29)}1`],
    [`0.${'9'.repeat(30)}5`, `1.${zeros(30)}`],
    [`-0.${zeros(29)}15`, `-0.${zeros(29)}2`],
  ])('rounds %s to %s', (text, expected) => {
    expect(renderAmount(roundMoney(fromDb(text)))).toBe(expected);
  });

  it.each([
    // amount, from rate (USD per unit), to rate, expected
    ['100', '1', '1', `100.${zeros(30)}`],
    ['100', '1.1', '1', `110.${zeros(30)}`],
    ['1', '1', '3', `0.${'3'.repeat(30)}`],
    ['2', '1', '3', `0.${'6'.repeat(29)}7`],
    ['1', '1', '6', `0.1${'6'.repeat(28)}7`],
    ['0.1', '0.2', '1', `0.02${zeros(28)}`],
    ['5', '1', '9', `0.${'5'.repeat(29)}6`],
  ])('converts %s at %s -> %s into %s', (amount, from, to, expected) => {
    expect(renderAmount(convert(parseAmount(amount), parseAmount(from), parseAmount(to)))).toBe(expected);
  });

  it('rounds a conversion once, half-up, at the 30th digit', () => {
    // 1 * 5 / (2 * 10^30) = 2.5e-30: the 30th digit is 2, followed by exactly 5 -> up to 3.
    const out = convert(parseAmount('1'), parseAmount('5'), parseAmount(`2${zeros(30)}`));
    expect(renderAmount(out)).toBe(`0.${zeros(29)}3`);
    // 1 * 4.9 / (2 * 10^30) = 2.45e-30 -> 2
    expect(renderAmount(convert(parseAmount('1'), parseAmount('4.9'), parseAmount(`2${zeros(30)}`)))).toBe(`0.${zeros(29)}2`);
  });

  it('keeps the result exactly (never via a JavaScript number)', () => {
    const out = convert(parseAmount('0.1'), parseAmount('3'), parseAmount('1'));
    expect(renderAmount(out)).toBe(`0.3${zeros(29)}`);
  });

  it('sums exactly', () => {
    expect(renderAmount(sumAmounts(['0.1', '0.2', `0.${zeros(29)}1`].map(parseAmount)))).toBe(`0.3${zeros(28)}1`);
    expect(renderAmount(sumAmounts([]))).toBe(`0.${zeros(30)}`);
  });
});

describe('canonicalCurrency', () => {
  it.each([
    ['USD', 'USD'],
    ['usd', 'USD'],
    ['Eur', 'EUR'],
    ['usdc_native', 'USDC_NATIVE'],
    ['BTC', 'BITCOIN'],
    ['btc', 'BITCOIN'],
    ['bitcoin', 'BITCOIN'],
    ['usdx', 'usdx'],
    [42, 42],
  ])('reads %p as %p', (input, expected) => {
    expect(canonicalCurrency(input)).toBe(expected);
  });
});
