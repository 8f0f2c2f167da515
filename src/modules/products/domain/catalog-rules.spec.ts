import { Money } from '../../../shared/money/money';
import { inheritVersionGroups, recurringTermsOf, RecurringTermsInput, TierBounds, tierProblems } from './catalog-rules';

const tier = (startsAt: string, endsAt: string | null, metric = 'm'): TierBounds => ({
  startsAt: new Money(startsAt),
  endsAt: endsAt === null ? null : new Money(endsAt),
  metric,
});

describe('tierProblems', () => {
  it.each<[string, TierBounds[], Record<string, string>]>([
    ['no tiers', [], {}],
    ['one open tier', [tier('0', null)], {}],
    ['adjacent tiers with an open last tier', [tier('0', '100'), tier('100', '1000'), tier('1000', null)], {}],
    ['adjacent tiers given out of order', [tier('100', null), tier('0', '100')], {}],
    ['touching at a 30-digit fraction', [tier('0', '0.000000000000000000000000000001'), tier('0.000000000000000000000000000001', null)], {}],
    ['a gap between tiers', [tier('0', '10'), tier('20', null)], {}],
    ['overlapping closed tiers', [tier('0', '100'), tier('50', '200')], { '1.starts_at': 'overlaps configurations.0 of the same metric' }],
    [
      'overlap by the smallest fraction',
      [tier('0', '1.000000000000000000000000000001'), tier('1', null)],
      { '1.starts_at': 'overlaps configurations.0 of the same metric' },
    ],
    ['a tier after an open tier', [tier('0', null), tier('100', '200')], { '1.starts_at': 'overlaps configurations.0 of the same metric' }],
    ['two open tiers', [tier('0', null), tier('5', null)], { '1.starts_at': 'overlaps configurations.0 of the same metric' }],
    ['the earlier-starting tier given second', [tier('50', '200'), tier('0', '100')], { '0.starts_at': 'overlaps configurations.1 of the same metric' }],
    ['identical tiers', [tier('0', '10'), tier('0', '10')], { '1.starts_at': 'overlaps configurations.0 of the same metric' }],
    ['starts_at equal to ends_at', [tier('5', '5')], { '0.starts_at': 'must be less than ends_at' }],
    ['starts_at above ends_at', [tier('0', '10'), tier('20', '10')], { '1.starts_at': 'must be less than ends_at' }],
    ['overlapping tiers of different metrics', [tier('0', null, 'api_calls'), tier('0', null, 'storage')], {}],
    [
      'overlap within one metric among others',
      [tier('0', null, 'a'), tier('0', '10', 'b'), tier('5', '20', 'b')],
      { '2.starts_at': 'overlaps configurations.1 of the same metric' },
    ],
  ])('%s', (_, tiers, expected) => {
    expect(tierProblems(tiers)).toEqual(expected);
  });
});

describe('recurringTermsOf', () => {
  const full: RecurringTermsInput = {
    type: 'RECURRING',
    interval_type: 'MONTH',
    interval_count: 1,
    payment_type: 'ARREARS',
    renew_type: 'CALENDAR',
    billing_type: 'FULL',
  };
  const none = { interval_type: null, interval_count: null, payment_type: null, renew_type: null, billing_type: null };

  it.each<[string, RecurringTermsInput, unknown]>([
    [
      'a complete RECURRING schema keeps its terms',
      full,
      { terms: { interval_type: 'MONTH', interval_count: 1, payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'FULL' } },
    ],
    ['ONE_TIME stores no terms', { type: 'ONE_TIME' }, { terms: none }],
    ['ONE_TIME drops terms that were sent', { ...full, type: 'ONE_TIME' }, { terms: none }],
    ['RECURRING without interval_type', { ...full, interval_type: undefined }, { errors: { interval_type: 'is required for RECURRING schemas' } }],
    ['RECURRING with a null interval_count', { ...full, interval_count: null }, { errors: { interval_count: 'is required for RECURRING schemas' } }],
    [
      'RECURRING with nothing',
      { type: 'RECURRING' },
      {
        errors: {
          interval_type: 'is required for RECURRING schemas',
          interval_count: 'is required for RECURRING schemas',
          payment_type: 'is required for RECURRING schemas',
          renew_type: 'is required for RECURRING schemas',
          billing_type: 'is required for RECURRING schemas',
        },
      },
    ],
  ])('%s', (_, input, expected) => {
    expect(recurringTermsOf(input)).toEqual(expected);
  });
});

describe('inheritVersionGroups', () => {
  const fresh = () => {
    let n = 0;
    return () => `new_${++n}`;
  };
  it.each<[string, string[], number, string[]]>([
    ['same count keeps every group', ['a', 'b'], 2, ['a', 'b']],
    ['more records start new groups', ['a'], 3, ['a', 'new_1', 'new_2']],
    ['fewer records keep the leading groups', ['a', 'b', 'c'], 1, ['a']],
    ['a first version starts all groups', [], 2, ['new_1', 'new_2']],
  ])('%s', (_, previous, count, expected) => {
    expect(inheritVersionGroups(previous, count, fresh())).toEqual(expected);
  });
});
