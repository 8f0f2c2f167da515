import { Money, roundMoney } from '../../../shared/money/money';
import type { Amount } from '../../../shared/money/money';
import type { IntervalType } from './periods';

/** Months in one interval of each type (a year of 365 days and 52 weeks is 12 months). */
const MONTHS_PER_INTERVAL: Record<IntervalType, Amount> = {
  DAY: new Money(12).div(365),
  WEEK: new Money(12).div(52),
  MONTH: new Money(1),
  YEAR: new Money(12),
};

/**
 * Monthly recurring revenue of a base price charged every `count` intervals of a type: a yearly
 * 120 is 10 a month, a 3-month 30 is 10 a month, a weekly 10 is 10 x 52 / 12 (usage is not recurring
 * revenue and is left out). Exact, rounded once at 30 digits.
 */
export function monthlyRecurring(periodAmount: Amount, type: IntervalType, count: number): Amount {
  return roundMoney(periodAmount.div(MONTHS_PER_INTERVAL[type].mul(count)));
}
