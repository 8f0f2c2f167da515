import { Money } from '../../../shared/money/money';
import type { Amount } from '../../../shared/money/money';

/** The recurring terms of a billing schema that decide a subscription's periods (the catalog's enumerations). */
export type IntervalType = 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
export type RenewType = 'CALENDAR' | 'ANNIVERSARY';
export type BillingType = 'FULL' | 'PRORATED';
export type PaymentType = 'ADVANCE' | 'ARREARS';

export interface PeriodTerms {
  intervalType: IntervalType;
  intervalCount: number;
  renewType: RenewType;
  billingType: BillingType;
}

/** One billing period: [start, end). `fullStart` is where the period would start were it whole (before start only for a partial first CALENDAR period). */
export interface Period {
  index: number;
  start: Date;
  end: Date;
  fullStart: Date;
}

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `from` moved by `months` calendar months in UTC, keeping the time of day; a day of the month that
 * the target month lacks becomes its last day (January 31 + 1 month = February 28 or 29).
 */
export function addMonths(from: Date, months: number): Date {
  const total = from.getUTCFullYear() * 12 + from.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/** `from` moved by `units` intervals of the given type (UTC). */
export function addIntervals(from: Date, type: IntervalType, units: number): Date {
  switch (type) {
    case 'DAY':
      return new Date(from.getTime() + units * DAY_MS);
    case 'WEEK':
      return new Date(from.getTime() + units * 7 * DAY_MS);
    case 'MONTH':
      return addMonths(from, units);
    case 'YEAR':
      return addMonths(from, units * 12);
  }
}

/** The start of the UTC calendar unit that holds `at`: midnight, Monday (ISO week), the 1st of the month, January 1st. */
export function calendarFloor(at: Date, type: IntervalType): Date {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  const d = at.getUTCDate();
  switch (type) {
    case 'DAY':
      return new Date(Date.UTC(y, m, d));
    case 'WEEK': {
      const sinceMonday = (at.getUTCDay() + 6) % 7;
      return new Date(Date.UTC(y, m, d - sinceMonday));
    }
    case 'MONTH':
      return new Date(Date.UTC(y, m, 1));
    case 'YEAR':
      return new Date(Date.UTC(y, 0, 1));
  }
}

/**
 * Where period boundaries are counted from: `startsAt` itself (ANNIVERSARY), or the start of the
 * calendar unit holding it (CALENDAR), so that a CALENDAR subscription's first period runs from
 * `startsAt` to the next boundary and is partial unless it starts exactly on one.
 */
export function periodAnchor(terms: PeriodTerms, startsAt: Date): Date {
  return terms.renewType === 'ANNIVERSARY' ? startsAt : calendarFloor(startsAt, terms.intervalType);
}

/**
 * Boundary k counted from the anchor (each one from the anchor itself, never from the previous
 * boundary, so a subscription from the 31st comes back to the 31st after a shorter month).
 */
function boundary(terms: PeriodTerms, anchor: Date, k: number): Date {
  return addIntervals(anchor, terms.intervalType, k * terms.intervalCount);
}

/** Period `index` (0 is the first) of a subscription that starts at `startsAt`. */
export function periodAt(terms: PeriodTerms, startsAt: Date, index: number): Period {
  const anchor = periodAnchor(terms, startsAt);
  const fullStart = boundary(terms, anchor, index);
  return { index, start: index === 0 ? startsAt : fullStart, end: boundary(terms, anchor, index + 1), fullStart };
}

/** The period that holds `at` (the first one for any moment before `startsAt`). */
export function periodContaining(terms: PeriodTerms, startsAt: Date, at: Date): Period {
  if (at.getTime() < startsAt.getTime()) return periodAt(terms, startsAt, 0);
  // A first guess from the average length of the interval, then a walk to the exact period.
  const approx = { DAY: 1, WEEK: 7, MONTH: 30.436875, YEAR: 365.2425 }[terms.intervalType] * terms.intervalCount * DAY_MS;
  let index = Math.max(0, Math.floor((at.getTime() - periodAnchor(terms, startsAt).getTime()) / approx) - 1);
  let period = periodAt(terms, startsAt, index);
  while (period.start.getTime() > at.getTime() && index > 0) period = periodAt(terms, startsAt, --index);
  while (period.end.getTime() <= at.getTime()) period = periodAt(terms, startsAt, ++index);
  return period;
}

/** A share of the base price as a fraction (seconds charged over the whole period's seconds), kept apart so that money is divided once, last. */
export interface Share {
  part: Amount;
  whole: Amount;
}

/**
 * The share of the base price a period is charged: all of it for a whole period or with
 * `billing_type` FULL; for a partial period with PRORATED, its whole seconds over the whole
 * period's seconds.
 */
export function chargedShare(period: Period, billingType: BillingType): Share {
  if (billingType === 'FULL' || period.start.getTime() === period.fullStart.getTime()) return { part: new Money(1), whole: new Money(1) };
  const seconds = (from: Date, to: Date) => new Money(Math.floor((to.getTime() - from.getTime()) / 1000));
  return { part: seconds(period.start, period.end), whole: seconds(period.fullStart, period.end) };
}

/** True when the share is the whole price. */
export function isWhole(share: Share): boolean {
  return share.part.equals(share.whole);
}
