import { Money } from '../../../shared/money/money';
import {
  PERIOD_RETRY_MAX_MS,
  periodRetryDelayMs,
  baseAmount,
  BillingTerms,
  dueAction,
  dunningState,
  earliestUsageStillBilled,
  finalUsagePlan,
  initialSchedule,
  PeriodOutcome,
  periodInvoicePlan,
  scheduleAfterInvoice,
  SubscriptionStatus,
} from './billing';

const terms = (paymentType: BillingTerms['paymentType'], renewType: BillingTerms['renewType'] = 'CALENDAR'): BillingTerms => ({
  intervalType: 'MONTH',
  intervalCount: 1,
  renewType,
  billingType: 'PRORATED',
  paymentType,
});
const starts = new Date('2026-04-16T00:00:00Z');

describe('period invoices', () => {
  it('ADVANCE bills a period at its start, with the usage of the period before', () => {
    const first = periodInvoicePlan(terms('ADVANCE'), starts, 0);
    expect(first.dueAt.toISOString()).toBe('2026-04-16T00:00:00.000Z');
    expect(first.usagePeriod).toBeNull();
    expect(`${first.baseShare.part.toFixed()}/${first.baseShare.whole.toFixed()}`).toBe('1296000/2592000');
    const second = periodInvoicePlan(terms('ADVANCE'), starts, 1);
    expect(second.dueAt.toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(second.usagePeriod!.start.toISOString()).toBe('2026-04-16T00:00:00.000Z');
    expect(second.baseShare.part.equals(second.baseShare.whole)).toBe(true);
  });

  it('ARREARS bills a period at its end, with its own usage', () => {
    const first = periodInvoicePlan(terms('ARREARS'), starts, 0);
    expect(first.dueAt.toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(first.usagePeriod).toEqual(first.period);
  });

  it("the final usage invoice of ADVANCE canceled at period end: at the end, the last served period's usage, no base", () => {
    // Ends before period 2 (June): bills May's usage, at June 1st, with a period that is the end itself.
    const final = finalUsagePlan(terms('ADVANCE'), starts, 2);
    expect(final).toMatchObject({ index: 2, finalUsage: true });
    expect(final.dueAt.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect([final.period.start, final.period.end].map((d) => d.toISOString())).toEqual(['2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    expect([final.usagePeriod!.start, final.usagePeriod!.end].map((d) => d.toISOString())).toEqual(['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    expect(baseAmount(new Money(20), 3, final.baseShare).isZero()).toBe(true);
    // The usage it bills is what period 2's invoice would have billed; it is what retention keeps for it.
    expect(final.usagePeriod).toEqual(periodInvoicePlan(terms('ADVANCE'), starts, 2).usagePeriod);
    expect(() => finalUsagePlan(terms('ARREARS'), starts, 2)).toThrow();
    expect(() => finalUsagePlan(terms('ADVANCE'), starts, 0)).toThrow();
  });

  it('the base line is price x quantity x share, rounded once', () => {
    const third = { part: new Money(1), whole: new Money(3) };
    expect(baseAmount(new Money('10'), 3, third).toFixed()).toBe('10');
    expect(baseAmount(new Money('10'), 1, third).toFixed()).toBe('3.333333333333333333333333333333');
    expect(baseAmount(new Money('20'), 1, { part: new Money(2), whole: new Money(3) }).toFixed()).toBe('13.333333333333333333333333333333');
    expect(baseAmount(new Money('2592000'), 1, { part: new Money(892800), whole: new Money(2592000) }).toFixed()).toBe('892800');
  });
});

describe('dunning', () => {
  const start = (index: number) => new Date(Date.UTC(2026, index, 1));
  const o = (index: number, outcome: 'paid' | 'unpaid'): PeriodOutcome => ({ index, periodStart: start(index), outcome });
  /** The status after outcomes decided one by one in the order given. */
  const decided = (...order: PeriodOutcome[]) => {
    let status: SubscriptionStatus = 'ACTIVE';
    const known: PeriodOutcome[] = [];
    const seen: SubscriptionStatus[] = [];
    for (const next of order) {
      known.push(next);
      status = dunningState(status, known).status;
      seen.push(status);
    }
    return seen;
  };

  it('an unpaid period makes it PAST_DUE, a later paid one ACTIVE again', () => {
    expect(decided(o(0, 'unpaid'), o(1, 'paid'))).toEqual(['PAST_DUE', 'ACTIVE']);
  });
  it('an earlier period paid late does not clear a later unpaid one', () => {
    expect(decided(o(3, 'unpaid'), o(2, 'paid'))).toEqual(['PAST_DUE', 'PAST_DUE']);
  });
  it('a later period paid before an earlier one is voided: the latest decided period (paid) wins', () => {
    expect(decided(o(1, 'paid'), o(0, 'unpaid'))).toEqual(['ACTIVE', 'ACTIVE']);
  });
  it('unpaid, paid, unpaid in period order never cancels: no two unpaid periods are adjacent', () => {
    expect(decided(o(0, 'unpaid'), o(1, 'paid'), o(2, 'unpaid'))).toEqual(['PAST_DUE', 'ACTIVE', 'PAST_DUE']);
    // Decided in another order, the same.
    expect(decided(o(2, 'unpaid'), o(0, 'unpaid'), o(1, 'paid'))).toEqual(['PAST_DUE', 'PAST_DUE', 'PAST_DUE']);
  });
  it.each([
    ['in order', [o(0, 'unpaid'), o(1, 'unpaid')]],
    ['the later one first', [o(1, 'unpaid'), o(0, 'unpaid')]],
    ['with a paid period decided between them', [o(4, 'unpaid'), o(6, 'paid'), o(5, 'unpaid')]],
  ])('two unpaid periods adjacent by index cancel it (%s)', (_name, order) => {
    expect(decided(...order).at(-1)).toBe('CANCELED');
  });
  it('two unpaid periods with an undecided one between them do not cancel it', () => {
    expect(decided(o(0, 'unpaid'), o(2, 'unpaid'))).toEqual(['PAST_DUE', 'PAST_DUE']);
  });
  it('CANCELED is final, whatever is decided after', () => {
    expect(decided(o(0, 'unpaid'), o(1, 'unpaid'), o(2, 'paid'))).toEqual(['PAST_DUE', 'CANCELED', 'CANCELED']);
    expect(dunningState('CANCELED', [o(0, 'paid')]).status).toBe('CANCELED');
  });
  it('nothing decided leaves the status as it is; counts the unpaid periods and the latest one', () => {
    expect(dunningState('ACTIVE', [])).toEqual({ status: 'ACTIVE', unpaidPeriods: 0, lastUnpaidIndex: -1 });
    expect(dunningState('ACTIVE', [o(0, 'unpaid'), o(3, 'unpaid'), o(4, 'paid')])).toEqual({ status: 'ACTIVE', unpaidPeriods: 2, lastUnpaidIndex: 3 });
  });
});

describe('schedule', () => {
  it('ADVANCE: first invoice at the start, then at each next start; the period invoiced is the current one', () => {
    const s0 = initialSchedule(terms('ADVANCE'), starts);
    expect(s0).toEqual({ currentIndex: 0, nextInvoiceIndex: 0, nextInvoiceAt: new Date('2026-04-16T00:00:00Z') });
    expect(scheduleAfterInvoice(terms('ADVANCE'), starts, 0)).toEqual({
      currentIndex: 0,
      nextInvoiceIndex: 1,
      nextInvoiceAt: new Date('2026-05-01T00:00:00Z'),
    });
  });
  it('ARREARS: invoices at each end and moves into the next period', () => {
    expect(initialSchedule(terms('ARREARS'), starts).nextInvoiceAt).toEqual(new Date('2026-05-01T00:00:00Z'));
    expect(scheduleAfterInvoice(terms('ARREARS'), starts, 0)).toEqual({
      currentIndex: 1,
      nextInvoiceIndex: 1,
      nextInvoiceAt: new Date('2026-06-01T00:00:00Z'),
    });
  });
  it.each([
    ['ADVANCE', false, 'invoice'],
    ['ARREARS', false, 'invoice'],
    ['ADVANCE', true, 'end'],
    ['ARREARS', true, 'invoice_then_end'],
  ] as const)('%s with cancel_at_period_end %s: %s', (paymentType, cancel, action) => {
    expect(dueAction(paymentType, cancel)).toBe(action);
  });
});

describe('usage still billed (what retention may not drop)', () => {
  it.each([
    ['ADVANCE', 3, [], '2026-06-01T00:00:00.000Z'],
    ['ARREARS', 3, [], '2026-07-01T00:00:00.000Z'],
    ['ARREARS', 3, [1], '2026-05-01T00:00:00.000Z'],
    ['ADVANCE', 0, [], '2026-04-16T00:00:00.000Z'],
    ['ARREARS', null, [2], '2026-06-01T00:00:00.000Z'],
    ['ARREARS', null, [], null],
  ] as const)('%s, next invoice %s, unissued %j: usage from %s', (paymentType, next, unissued, expected) => {
    expect(earliestUsageStillBilled(terms(paymentType), starts, next, unissued)?.toISOString() ?? null).toBe(expected);
  });
});

describe('periodRetryDelayMs', () => {
  it('tries again on the next pass after the first failure, then doubles from 2 s up to an hour', () => {
    expect(periodRetryDelayMs(1)).toBe(1);
    expect([2, 3, 4, 5].map(periodRetryDelayMs)).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(periodRetryDelayMs(12)).toBe(2_048_000);
    expect(periodRetryDelayMs(13)).toBe(PERIOD_RETRY_MAX_MS);
    expect(periodRetryDelayMs(10_000)).toBe(PERIOD_RETRY_MAX_MS);
  });
});
