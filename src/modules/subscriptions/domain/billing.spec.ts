import { Money } from '../../../shared/money/money';
import { afterSettlement, baseAmount, BillingTerms, dueAction, DunningState, initialSchedule, periodInvoicePlan, scheduleAfterInvoice } from './billing';

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

  it('the base line is price x quantity x share, rounded once', () => {
    const third = { part: new Money(1), whole: new Money(3) };
    expect(baseAmount(new Money('10'), 3, third).toFixed()).toBe('10');
    expect(baseAmount(new Money('10'), 1, third).toFixed()).toBe('3.333333333333333333333333333333');
    expect(baseAmount(new Money('20'), 1, { part: new Money(2), whole: new Money(3) }).toFixed()).toBe('13.333333333333333333333333333333');
    expect(baseAmount(new Money('2592000'), 1, { part: new Money(892800), whole: new Money(2592000) }).toFixed()).toBe('892800');
  });
});

describe('dunning', () => {
  const active: DunningState = { status: 'ACTIVE', unpaidPeriods: 0, lastUnpaidIndex: -1 };
  it('an unpaid period makes it PAST_DUE, a later paid one ACTIVE again', () => {
    const pastDue = afterSettlement(active, 'unpaid', 0);
    expect(pastDue).toEqual({ status: 'PAST_DUE', unpaidPeriods: 1, lastUnpaidIndex: 0 });
    expect(afterSettlement(pastDue, 'paid', 1)).toEqual({ status: 'ACTIVE', unpaidPeriods: 0, lastUnpaidIndex: 0 });
  });
  it('an earlier period paid late does not clear a later unpaid one', () => {
    const pastDue = afterSettlement(active, 'unpaid', 3);
    expect(afterSettlement(pastDue, 'paid', 2).status).toBe('PAST_DUE');
  });
  it('two unpaid periods in a row cancel it, and a canceled one stays canceled', () => {
    const canceled = afterSettlement(afterSettlement(active, 'unpaid', 0), 'unpaid', 1);
    expect(canceled.status).toBe('CANCELED');
    expect(afterSettlement(canceled, 'paid', 2).status).toBe('CANCELED');
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
