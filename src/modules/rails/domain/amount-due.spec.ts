import { Money } from '../../../shared/money/money';
import { stillDue, toUnits } from './amount-due';

const m = (v: string) => new Money(v);

describe('stillDue', () => {
  it.each([
    ['25.5', '0', '1.0002', 6, '25.494902'],
    ['100', '40', '1', 6, '60'],
    ['100', '40', '3', 6, '20'],
    ['100', '99.9999999', '3', 6, '0.000001'],
    ['100', '100', '1', 6, '0'],
    ['100', '150', '1', 6, '0'],
    ['3000', '0', '3000', 18, '1'],
    ['10', '0', '3000', 18, '0.003333333333333334'],
  ])('price_usd %s less paid %s at rate %s, %i decimals: %s', (price, paid, rate, decimals, expected) => {
    expect(stillDue(m(price), m(paid), m(rate), decimals).toFixed()).toBe(expected);
  });
});

describe('toUnits', () => {
  it.each([
    ['25.494902', 6, 25494902n],
    ['0.003333333333333334', 18, 3333333333333334n],
    ['1', 18, 1000000000000000000n],
    ['0', 6, 0n],
  ])('%s with %i decimals is %s units', (amount, decimals, units) => {
    expect(toUnits(m(amount), decimals)).toBe(units);
  });
});
