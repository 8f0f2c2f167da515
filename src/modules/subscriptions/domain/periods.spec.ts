import { addMonths, calendarFloor, chargedShare, isWhole, periodAt, periodContaining, PeriodTerms, Share } from './periods';

const ratio = (s: Share) => `${s.part.toFixed()}/${s.whole.toFixed()}`;

const t = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();
const monthly = (renewType: PeriodTerms['renewType'], billingType: PeriodTerms['billingType'] = 'FULL', intervalCount = 1): PeriodTerms => ({
  intervalType: 'MONTH',
  intervalCount,
  renewType,
  billingType,
});

describe('subscription periods', () => {
  it.each([
    ['2026-01-31T10:00:00.000Z', 1, '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'],
    ['2026-03-31T00:00:00.000Z', 1, '2026-04-30T00:00:00.000Z'],
    ['2026-12-15T00:00:00.000Z', 1, '2027-01-15T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 12, '2029-02-28T00:00:00.000Z'],
    ['2026-05-31T23:59:59.000Z', 13, '2027-06-30T23:59:59.000Z'],
  ])('adds months in UTC: %s + %i months = %s', (from, months, expected) => {
    expect(iso(addMonths(t(from), months))).toBe(expected);
  });

  it('a monthly ANNIVERSARY subscription from the 31st ends on the last day of shorter months and returns to the 31st', () => {
    const terms = monthly('ANNIVERSARY');
    const starts = t('2026-01-31T08:30:00Z');
    const periods = [0, 1, 2, 3].map((i) => periodAt(terms, starts, i));
    expect(periods.map((p) => [iso(p.start), iso(p.end)])).toEqual([
      ['2026-01-31T08:30:00.000Z', '2026-02-28T08:30:00.000Z'],
      ['2026-02-28T08:30:00.000Z', '2026-03-31T08:30:00.000Z'],
      ['2026-03-31T08:30:00.000Z', '2026-04-30T08:30:00.000Z'],
      ['2026-04-30T08:30:00.000Z', '2026-05-31T08:30:00.000Z'],
    ]);
    expect(periods.every((p) => isWhole(chargedShare(p, 'PRORATED')))).toBe(true);
  });

  it.each([
    ['DAY', '2026-11-27T15:00:00Z', '2026-11-27T00:00:00.000Z'],
    ['WEEK', '2026-11-27T15:00:00Z', '2026-11-23T00:00:00.000Z'],
    ['WEEK', '2026-11-23T00:00:00Z', '2026-11-23T00:00:00.000Z'],
    ['WEEK', '2026-11-29T23:00:00Z', '2026-11-23T00:00:00.000Z'],
    ['MONTH', '2026-11-27T15:00:00Z', '2026-11-01T00:00:00.000Z'],
    ['YEAR', '2026-11-27T15:00:00Z', '2026-01-01T00:00:00.000Z'],
  ] as const)('CALENDAR %s periods start at UTC boundaries: %s -> %s', (type, at, floor) => {
    expect(iso(calendarFloor(t(at), type))).toBe(floor);
  });

  it('a CALENDAR month started mid-month has a partial first period, then whole calendar months', () => {
    const terms = monthly('CALENDAR', 'PRORATED');
    const starts = t('2026-04-16T00:00:00Z');
    const first = periodAt(terms, starts, 0);
    expect([iso(first.start), iso(first.end), iso(first.fullStart)]).toEqual([
      '2026-04-16T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
      '2026-04-01T00:00:00.000Z',
    ]);
    // 15 of April's 30 days.
    expect(ratio(chargedShare(first, 'PRORATED'))).toBe('1296000/2592000');
    expect(isWhole(chargedShare(first, 'FULL'))).toBe(true);
    const second = periodAt(terms, starts, 1);
    expect([iso(second.start), iso(second.end)]).toEqual(['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    expect(isWhole(chargedShare(second, 'PRORATED'))).toBe(true);
  });

  it('prorates by whole seconds of the whole calendar period', () => {
    const terms = monthly('CALENDAR', 'PRORATED');
    // November has 30 days = 2,592,000 s.
    expect(ratio(chargedShare(periodAt(terms, t('2026-11-30T23:59:59.900Z'), 0), 'PRORATED'))).toBe('0/2592000');
    expect(ratio(chargedShare(periodAt(terms, t('2026-11-20T16:00:00Z'), 0), 'PRORATED'))).toBe('892800/2592000');
  });

  it('a CALENDAR subscription starting on a boundary has a whole first period', () => {
    const first = periodAt(monthly('CALENDAR', 'PRORATED'), t('2026-06-01T00:00:00Z'), 0);
    expect(isWhole(chargedShare(first, 'PRORATED'))).toBe(true);
  });

  it('counts several intervals per period, CALENDAR ones from the start of the unit', () => {
    const quarterly = monthly('CALENDAR', 'PRORATED', 3);
    const first = periodAt(quarterly, t('2026-02-15T00:00:00Z'), 0);
    expect([iso(first.fullStart), iso(first.end)]).toEqual(['2026-02-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z']);
    const weekly2: PeriodTerms = { intervalType: 'WEEK', intervalCount: 2, renewType: 'ANNIVERSARY', billingType: 'FULL' };
    expect(iso(periodAt(weekly2, t('2026-11-27T12:00:00Z'), 1).end)).toBe('2026-12-25T12:00:00.000Z');
  });

  it('finds the period holding a moment', () => {
    const terms = monthly('ANNIVERSARY');
    const starts = t('2026-01-31T00:00:00Z');
    expect(periodContaining(terms, starts, t('2026-01-01T00:00:00Z')).index).toBe(0);
    expect(periodContaining(terms, starts, t('2026-02-28T00:00:00Z')).index).toBe(1);
    expect(periodContaining(terms, starts, t('2026-02-27T23:59:59.999Z')).index).toBe(0);
    expect(periodContaining(terms, starts, t('2027-01-31T00:00:00Z')).index).toBe(12);
    const daily: PeriodTerms = { intervalType: 'DAY', intervalCount: 1, renewType: 'CALENDAR', billingType: 'FULL' };
    expect(periodContaining(daily, t('2026-01-01T12:00:00Z'), t('2026-01-11T00:00:00Z')).index).toBe(10);
  });
});
