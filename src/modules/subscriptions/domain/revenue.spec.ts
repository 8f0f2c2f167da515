import { Money } from '../../../shared/money/money';
import { monthlyRecurring } from './revenue';

describe('monthly recurring revenue', () => {
  it.each([
    ['10', 'MONTH', 1, '10'],
    ['120', 'YEAR', 1, '10'],
    ['30', 'MONTH', 3, '10'],
    ['240', 'YEAR', 2, '10'],
    ['12', 'WEEK', 1, '52'],
    ['1', 'DAY', 1, '30.416666666666666666666666666667'],
    ['100', 'MONTH', 7, '14.285714285714285714285714285714'],
  ] as const)('%s every %s x %i is %s a month', (amount, type, count, monthly) => {
    expect(monthlyRecurring(new Money(amount), type, count).toFixed()).toBe(monthly);
  });
});
