import { canMove, isFinal, InvoiceStatus, InvoiceSubstatus, StatusChange } from './invoice-status';

/**
 * The clocks of an invoice, as pure functions of its stored state and "now" (docs/timing.md).
 * - Until `expires_at` the quoted rates hold and a payment is expected.
 * - From `expires_at` an unpaid (PENDING) invoice keeps its status with substatus EXPIRED: no new
 *   payment is expected, but the service still watches for one during the monitoring window.
 * - When the window closes on an invoice still PENDING (no completed payment, none in flight) it
 *   becomes VOIDED with substatus EXPIRED.
 * Invoices with a payment in flight (WAITING_FOR_CONFIRMATIONS, PROCESSING) or partly paid are left
 * to their payments; should an in-flight payment fail later, the invoice falls back to PENDING and
 * the clocks apply to it at once. One exception: a payment a chain reorg took off the chain may come back
 * (its transaction mined again), so such a fall-back holds the window open (`clockHeldUntil`, set by the
 * settlement) for another monitoring window from that moment. Invoices without expires_at (written before
 * expiry existed) never expire.
 *
 * The sweeper persists these moves; every read applies `withTimeApplied` so a late sweeper is never seen.
 */
export interface TimedInvoice {
  status: InvoiceStatus;
  substatus: InvoiceSubstatus | null;
  expiresAt: Date | null;
  /** The window stays open at least until this instant (a reorg's fall-back); null or absent: no hold. */
  clockHeldUntil?: Date | null;
}

export const MIN_EXPIRY_MINUTES = 5;
export const MAX_EXPIRY_MINUTES = 43_200;

const MINUTE_MS = 60_000;

export function expiresAtFor(createdAt: Date, minutes: number): Date {
  return new Date(createdAt.getTime() + minutes * MINUTE_MS);
}

/** End of the monitoring window, or null for an invoice that never expires. */
export function monitoringEndsAt(expiresAt: Date | null, monitoringMinutes: number): Date | null {
  return expiresAt ? new Date(expiresAt.getTime() + monitoringMinutes * MINUTE_MS) : null;
}

/**
 * When the invoice's payment window closes: the end of its monitoring window, or later while a reorg's hold
 * lasts (what `monitoring_until` shows); null for an invoice that never expires.
 */
export function paymentWindowEndsAt(invoice: Pick<TimedInvoice, 'expiresAt' | 'clockHeldUntil'>, monitoringMinutes: number): Date | null {
  const ends = monitoringEndsAt(invoice.expiresAt, monitoringMinutes);
  const held = invoice.clockHeldUntil ?? null;
  return ends && held && held.getTime() > ends.getTime() ? held : ends;
}

/**
 * When an invoice counts as past its payment window for a follower deciding whether it was paid (a subscription's
 * period): the window's end, or one more monitoring window later while a payment seen in time is still settling
 * (WAITING_FOR_CONFIRMATIONS, PROCESSING), so a payer who paid at the last minute is not counted unpaid for the
 * chain's confirmations or the provider's answer; a payment that never settles is decided then. Null: never.
 */
export function settlingWindowEndsAt(invoice: TimedInvoice, monitoringMinutes: number): Date | null {
  const ends = paymentWindowEndsAt(invoice, monitoringMinutes);
  const settling = invoice.status === 'WAITING_FOR_CONFIRMATIONS' || invoice.status === 'PROCESSING';
  return ends && settling ? new Date(ends.getTime() + monitoringMinutes * MINUTE_MS) : ends;
}

/**
 * The hold a reorg's fall-back to PENDING at `at` writes: another monitoring window from then, but never past one
 * more window after the invoice's own (a payer whose unmined transactions keep leaving the mempool cannot keep an
 * invoice open for ever); null when the window already lasts that long (nothing to write).
 */
export function reorgHold(invoice: Pick<TimedInvoice, 'expiresAt' | 'clockHeldUntil'>, at: Date, monitoringMinutes: number): Date | null {
  const own = monitoringEndsAt(invoice.expiresAt, monitoringMinutes);
  const ends = paymentWindowEndsAt(invoice, monitoringMinutes);
  if (!own || !ends) return null;
  const window = monitoringMinutes * MINUTE_MS;
  const hold = new Date(Math.min(at.getTime() + window, own.getTime() + window));
  return hold.getTime() > ends.getTime() ? hold : null;
}

/**
 * An unpaid invoice that expired at or before this instant is past its monitoring window at `now`
 * (VOIDED as of now, unless its `clock_held_until` is later than `now`): the same rule as timeMove, said
 * as one cutoff a query can compare expires_at to.
 */
export function voidedIfExpiredBy(now: Date, monitoringMinutes: number): Date {
  return new Date(now.getTime() - monitoringMinutes * MINUTE_MS);
}

/** The quoted rates no longer hold and no new payment is expected. */
export function isPastExpiry(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && now.getTime() >= expiresAt.getTime();
}

/**
 * The rate lock: up to and including the instant `expires_at` the invoice's own rates snapshot values what
 * a payer sends (a payment that happened at that instant is on time and valued at it, agreedRatesSnapshot);
 * after it (and for an invoice without a snapshot or without expiry) the current rates do, shown as null.
 * `now` is the invoice's scope's now (Clock.nowFor), so a moved test clock ends the lock for every reader.
 */
export function heldRatesSnapshot(invoice: { ratesSnapshotId: string | null; expiresAt: Date | null }, now: Date): string | null {
  if (!invoice.ratesSnapshotId || invoice.expiresAt === null || isLatePayment(now, invoice.expiresAt)) return null;
  return invoice.ratesSnapshotId;
}

/**
 * When an invoice's rate lock was taken and until when it holds. It was taken when the invoice was priced: at
 * its creation, or at its last currency change, which is not stored; its snapshot's own time (`ratesTakenAt`)
 * if later than the creation is the nearest earlier moment known, so a re-priced invoice's lock is judged a
 * little early (a rate counts as fresh if it was fresh then).
 */
export function rateLock(invoice: { createdAt: Date; ratesTakenAt: Date | null }, until: Date): { from: Date; until: Date } {
  const from = invoice.ratesTakenAt && invoice.ratesTakenAt > invoice.createdAt ? invoice.ratesTakenAt : invoice.createdAt;
  return { from, until };
}

/** A payment made after the invoice expired (it may still complete it, as PAID_LATE). */
export function isLatePayment(happenedAt: Date, expiresAt: Date | null): boolean {
  return expiresAt !== null && happenedAt.getTime() > expiresAt.getTime();
}

/** The move the clock calls for at `now`, or null when the invoice stays as it is. */
export function timeMove(invoice: TimedInvoice, now: Date, monitoringMinutes: number): StatusChange | null {
  if (isFinal(invoice.status) || invoice.status !== 'PENDING' || !isPastExpiry(invoice.expiresAt, now)) return null;
  const closesAt = paymentWindowEndsAt(invoice, monitoringMinutes)!;
  const next: StatusChange = now.getTime() >= closesAt.getTime() ? { status: 'VOIDED', substatus: 'EXPIRED' } : { status: 'PENDING', substatus: 'EXPIRED' };
  if (next.status === invoice.status && next.substatus === invoice.substatus) return null;
  // The lifecycle table is the single authority on moves (domain/invoice-status.ts).
  if (!canMove(invoice.status, next.status, 'clock')) return null;
  return next;
}

/** The invoice as it stands at `now`: its stored state with any due clock move applied. */
export function withTimeApplied<T extends TimedInvoice>(invoice: T, now: Date, monitoringMinutes: number): T {
  const move = timeMove(invoice, now, monitoringMinutes);
  return move ? { ...invoice, status: move.status, substatus: move.substatus } : invoice;
}

/** Event types a clock move produces (where an event outbox exists): expiry, then any state change. */
export function timeMoveEvents(before: TimedInvoice, after: StatusChange): Array<'invoice.expired' | 'invoice.updated'> {
  const events: Array<'invoice.expired' | 'invoice.updated'> = [];
  if (after.substatus === 'EXPIRED' && before.substatus !== 'EXPIRED') events.push('invoice.expired');
  events.push('invoice.updated');
  return events;
}
