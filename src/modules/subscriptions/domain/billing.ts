import { Money, roundMoney } from '../../../shared/money/money';
import type { Amount } from '../../../shared/money/money';
import { chargedShare, PaymentType, Period, periodAt, PeriodTerms, Share } from './periods';

export interface BillingTerms extends PeriodTerms {
  paymentType: PaymentType;
}

/**
 * The invoice of one period: when it is due and what it charges.
 * - ADVANCE: due at the period's start; the base price for the period, and the usage of the
 *   period before it (none for the first).
 * - ARREARS: due at the period's end; the base price and the usage of the period itself.
 * The invoice carries `period` (its period_start / period_end).
 */
export interface PeriodInvoicePlan {
  index: number;
  period: Period;
  dueAt: Date;
  /** Share of the base price charged (below 1 only for a partial first period with PRORATED). */
  baseShare: Share;
  /** Whose usage the invoice bills, if any. */
  usagePeriod: Period | null;
  /** The final usage invoice of an ADVANCE subscription canceled at period end: usage only, no base line. */
  finalUsage?: true;
}

export function periodInvoicePlan(terms: BillingTerms, startsAt: Date, index: number): PeriodInvoicePlan {
  const period = periodAt(terms, startsAt, index);
  const baseShare = chargedShare(period, terms.billingType);
  if (terms.paymentType === 'ADVANCE') {
    return { index, period, dueAt: period.start, baseShare, usagePeriod: index > 0 ? periodAt(terms, startsAt, index - 1) : null };
  }
  return { index, period, dueAt: period.end, baseShare, usagePeriod: period };
}

/**
 * The final invoice of an ADVANCE subscription canceled at period end, at the start of period `index`
 * (the one it ends before serving): the usage of the last period served (`index - 1`), which that
 * period's own invoice, issued at its start, could not bill. It bills no period of service, so its
 * period is the end itself (`period.start` = `period.end`, the key its invoice is stored under).
 */
export function finalUsagePlan(terms: BillingTerms, startsAt: Date, index: number): PeriodInvoicePlan {
  if (terms.paymentType !== 'ADVANCE' || index < 1) throw new Error(`no final usage invoice for period ${index} of an ${terms.paymentType} subscription`);
  const end = periodAt(terms, startsAt, index).start;
  return {
    index,
    period: { index, start: end, end, fullStart: end },
    dueAt: end,
    baseShare: { part: new Money(0), whole: new Money(1) },
    usagePeriod: periodAt(terms, startsAt, index - 1),
    finalUsage: true,
  };
}

/** The base line's amount: base price x quantity x share, divided last and rounded once. */
export function baseAmount(basePrice: Amount, quantity: number, share: Share): Amount {
  return roundMoney(basePrice.mul(quantity).mul(share.part).div(share.whole));
}

export type SubscriptionStatus = 'ACTIVE' | 'PAST_DUE' | 'CANCELED';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['ACTIVE', 'PAST_DUE', 'CANCELED'];

/** Unpaid periods adjacent by index (n and n+1) that cancel a subscription. */
export const UNPAID_PERIODS_TO_CANCEL = 2;

/**
 * A period's outcome once decided: `paid` once its invoice is paid in full; `unpaid` once its payment
 * window ended without that (the invoice VOIDED, or still partly paid: a partial payment never stops
 * dunning). Until then the period is undecided and has no entry.
 */
export interface PeriodOutcome {
  index: number;
  periodStart: Date;
  outcome: 'paid' | 'unpaid';
}

export interface DunningState {
  status: SubscriptionStatus;
  /** Periods whose outcome is `unpaid`. */
  unpaidPeriods: number;
  /** Index of the latest period whose outcome is `unpaid` (-1: none). */
  lastUnpaidIndex: number;
}

/**
 * Dunning, from the decided outcomes of a subscription's periods in period order, whatever the order
 * they were decided in: CANCELED stays CANCELED; two periods adjacent by index both unpaid cancel it;
 * otherwise the latest period by start whose outcome is decided sets the status (paid: ACTIVE,
 * unpaid: PAST_DUE). With no decided period the status is left as it is.
 */
export function dunningState(current: SubscriptionStatus, outcomes: readonly PeriodOutcome[]): DunningState {
  const unpaid = new Set(outcomes.filter((o) => o.outcome === 'unpaid').map((o) => o.index));
  const counts = { unpaidPeriods: unpaid.size, lastUnpaidIndex: Math.max(-1, ...unpaid) };
  if (current === 'CANCELED') return { status: 'CANCELED', ...counts };
  if ([...unpaid].some((index) => unpaid.has(index + 1))) return { status: 'CANCELED', ...counts };
  let latest: PeriodOutcome | null = null;
  for (const o of outcomes) if (!latest || o.periodStart.getTime() > latest.periodStart.getTime()) latest = o;
  if (!latest) return { status: current, ...counts };
  return { status: latest.outcome === 'paid' ? 'ACTIVE' : 'PAST_DUE', ...counts };
}

/** Where a subscription stands in its periods: the current one, and the next invoice to issue (null: none). */
export interface Schedule {
  currentIndex: number;
  nextInvoiceIndex: number;
  nextInvoiceAt: Date | null;
}

export function initialSchedule(terms: BillingTerms, startsAt: Date): Schedule {
  return { currentIndex: 0, nextInvoiceIndex: 0, nextInvoiceAt: periodInvoicePlan(terms, startsAt, 0).dueAt };
}

/**
 * After period `index` was invoiced: ADVANCE is then in that period (its invoice came at its start),
 * ARREARS in the next one (its invoice came at the period's end).
 */
export function scheduleAfterInvoice(terms: BillingTerms, startsAt: Date, index: number): Schedule {
  return {
    currentIndex: terms.paymentType === 'ADVANCE' ? index : index + 1,
    nextInvoiceIndex: index + 1,
    nextInvoiceAt: periodInvoicePlan(terms, startsAt, index + 1).dueAt,
  };
}

/**
 * What a subscription whose next invoice is due does, when it was asked to cancel at the end of its
 * period: ADVANCE ends at the start of the period it would bill (never billing it; the usage of the
 * period it served goes in a final invoice, `finalUsagePlan`); ARREARS bills the period just served and
 * then ends. Without the request it always invoices.
 */
export function dueAction(paymentType: PaymentType, cancelAtPeriodEnd: boolean): 'invoice' | 'end' | 'invoice_then_end' {
  if (!cancelAtPeriodEnd) return 'invoice';
  return paymentType === 'ADVANCE' ? 'end' : 'invoice_then_end';
}

/**
 * The earliest usage a subscription may still bill: the start of the usage period of each invoice still
 * to be issued (the next one, `nextIndex`, while the subscription bills; and each period whose invoice is
 * recorded but not issued yet, `unissued`), the earliest of them. Usage before it is billed already (or
 * never will be); null when no invoice is to come. An invoice that bills no usage (the first in ADVANCE)
 * counts from its own period's start, so nothing at or after a period still to be billed is let go.
 */
export function earliestUsageStillBilled(terms: BillingTerms, startsAt: Date, nextIndex: number | null, unissued: readonly number[]): Date | null {
  let earliest: Date | null = null;
  for (const index of nextIndex === null ? unissued : [nextIndex, ...unissued]) {
    const plan = periodInvoicePlan(terms, startsAt, index);
    const start = plan.usagePeriod?.start ?? plan.period.start;
    if (!earliest || start < earliest) earliest = start;
  }
  return earliest;
}

/** The longest a period whose invoice keeps failing waits between two tries. */
export const PERIOD_RETRY_MAX_MS = 60 * 60_000;

/**
 * How long after its `attempts`-th failed try a period's invoice is tried again: on the next pass after
 * the first failure (a rate source back a moment later), then after 2, 4, 8 ... seconds, at most an hour
 * apart (a period that cannot be invoiced at all, its product gone, is not tried at every tick for ever).
 */
export function periodRetryDelayMs(attempts: number): number {
  if (attempts <= 1) return 1;
  return Math.min(2 ** Math.min(attempts - 1, 30) * 1000, PERIOD_RETRY_MAX_MS);
}
