import { InvalidStateTransitionError } from '../../../shared/errors/domain-error';
import type { Amount } from '../../../shared/money/money';
import { Money } from '../../../shared/money/money';
import type { PaymentTotals } from './payment-totals';

/**
 * The invoice lifecycle (decisions §8) as one explicit table. Every status change goes through
 * this file: merchant moves through `merchantMove`, payment-driven moves through
 * `nextStatusForPayments` (called by the payments module inside its own transaction).
 */
export const INVOICE_STATUSES = ['PENDING', 'COMPLETED', 'VOIDED', 'PROCESSING', 'WAITING_FOR_CONFIRMATIONS', 'PARTIALLY_PAID'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const INVOICE_SUBSTATUSES = ['PAID_OVER', 'PAID_PARTIAL', 'MARKED_PAID', 'EXPIRED', 'PAID_LATE', 'PAYMENT_REVERSED'] as const;
export type InvoiceSubstatus = (typeof INVOICE_SUBSTATUSES)[number];

export const FINAL_STATUSES: readonly InvoiceStatus[] = ['COMPLETED', 'VOIDED'];

/**
 * Who asks for a move: the merchant (PUT /invoices/{id}), the payments of the invoice, or the
 * clock (expiry and the end of the monitoring window, domain/invoice-timing.ts).
 */
export type Actor = 'merchant' | 'payment' | 'clock';

export interface Transition {
  from: InvoiceStatus;
  to: InvoiceStatus;
  by: Actor;
  /** Substatus written with the move (payment-driven moves pick theirs in nextStatusForPayments). */
  substatus?: InvoiceSubstatus | null;
}

const PAYABLE: readonly InvoiceStatus[] = ['PENDING', 'PARTIALLY_PAID', 'PROCESSING', 'WAITING_FOR_CONFIRMATIONS'];

export const TRANSITIONS: readonly Transition[] = [
  // A payment is seen but not yet completed.
  { from: 'PENDING', to: 'WAITING_FOR_CONFIRMATIONS', by: 'payment' },
  { from: 'PENDING', to: 'PROCESSING', by: 'payment' },
  // Completed payments cover all or part of the invoice.
  ...PAYABLE.map((from): Transition => ({ from, to: 'COMPLETED', by: 'payment' })),
  ...PAYABLE.filter((from) => from !== 'PARTIALLY_PAID').map((from): Transition => ({ from, to: 'PARTIALLY_PAID', by: 'payment' })),
  // The pending payment failed or was cancelled.
  { from: 'PROCESSING', to: 'PENDING', by: 'payment' },
  { from: 'WAITING_FOR_CONFIRMATIONS', to: 'PENDING', by: 'payment' },
  // A chain reorg reversed the completed payments of a part-paid invoice (docs/payments.md, "Chain reversals").
  { from: 'PARTIALLY_PAID', to: 'PENDING', by: 'payment' },
  { from: 'PARTIALLY_PAID', to: 'WAITING_FOR_CONFIRMATIONS', by: 'payment' },
  { from: 'PARTIALLY_PAID', to: 'PROCESSING', by: 'payment' },
  // (A COMPLETED invoice stays COMPLETED when a reorg reverses a payment it counted: no move, only its
  // substatus says PAYMENT_REVERSED while its payments no longer cover it; see reversedCompletion.)
  // The clock: an unpaid invoice expires (same status, substatus EXPIRED), and is voided when the
  // monitoring window closes with nothing paid.
  { from: 'PENDING', to: 'PENDING', by: 'clock', substatus: 'EXPIRED' },
  { from: 'PENDING', to: 'VOIDED', by: 'clock', substatus: 'EXPIRED' },
  // Merchant moves.
  { from: 'PENDING', to: 'VOIDED', by: 'merchant', substatus: null },
  { from: 'PENDING', to: 'COMPLETED', by: 'merchant', substatus: 'MARKED_PAID' },
  { from: 'PARTIALLY_PAID', to: 'COMPLETED', by: 'merchant', substatus: 'MARKED_PAID' },
];

export function isInvoiceStatus(value: unknown): value is InvoiceStatus {
  return typeof value === 'string' && (INVOICE_STATUSES as readonly string[]).includes(value);
}

export function isFinal(status: InvoiceStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

function findTransition(from: InvoiceStatus, to: InvoiceStatus, by: Actor): Transition | undefined {
  return TRANSITIONS.find((t) => t.from === from && t.to === to && t.by === by);
}

/** Targets the actor may move an invoice to from `from` (empty for final states). */
export function allowedTargets(from: InvoiceStatus, by: Actor): InvoiceStatus[] {
  return TRANSITIONS.filter((t) => t.from === from && t.by === by).map((t) => t.to);
}

export function canMove(from: InvoiceStatus, to: InvoiceStatus, by: Actor): boolean {
  return findTransition(from, to, by) !== undefined;
}

export interface StatusChange {
  status: InvoiceStatus;
  substatus: InvoiceSubstatus | null;
}

/** A merchant's requested move: the new status and substatus, or InvalidStateTransitionError (400, validator.status). */
export function merchantMove(from: InvoiceStatus, to: InvoiceStatus): StatusChange {
  const transition = findTransition(from, to, 'merchant');
  if (!transition) throw new InvalidStateTransitionError('invoice', from, to, allowedTargets(from, 'merchant'));
  return { status: to, substatus: transition.substatus ?? null };
}

/** The invoice's side of a settlement: where it stands, and what covers it. */
export interface SettlingInvoice {
  current: InvoiceStatus;
  /** The invoice's substatus now (for a COMPLETED invoice after a chain reversal). */
  currentSubstatus?: InvoiceSubstatus | null;
  /** price_usd of the invoice. */
  priceUsd: Amount;
  /** PAYMENT_TOLERANCE: a fraction between 0 and 1 (default 0). */
  tolerance?: Amount;
}

/**
 * The status the invoice's payments call for, or null when it stays as it is. Final states never
 * change (a COMPLETED one's substatus may: PAYMENT_REVERSED after a reorg, PAID_OVER when paid again). Full cover (USD value >= price_usd x (1 - tolerance)) completes the invoice (substatus
 * PAID_LATE when a counted payment came after expiry, else PAID_OVER when paid beyond price_usd); partial cover makes it PARTIALLY_PAID (PAID_PARTIAL); a
 * pending payment with nothing completed moves PENDING to WAITING_FOR_CONFIRMATIONS (crypto) or
 * PROCESSING (fiat); when that pending payment goes away, the invoice falls back to PENDING.
 */
export function nextStatusForPayments(invoice: SettlingInvoice, totals: PaymentTotals): StatusChange | null {
  const s = { ...invoice, ...totals };
  const tolerance = s.tolerance ?? new Money(0);
  const needed = s.priceUsd.mul(new Money(1).sub(tolerance));
  // After a reversal, any payment change may cover the invoice again (the transaction mined again, or a
  // new payment): the substatus follows the cover until it does.
  const reversed = s.currentSubstatus === 'PAYMENT_REVERSED';
  if (s.current === 'COMPLETED' && (s.chainMove || reversed) && s.currentSubstatus !== 'MARKED_PAID') return reversedCompletion(s, needed);
  // Paid again once completed (the payer sent twice, or a second wallet paid too): still COMPLETED, now
  // PAID_OVER, so the merchant sees money to give back. Only from no substatus: MARKED_PAID and PAID_LATE say more.
  if (s.current === 'COMPLETED' && (s.currentSubstatus ?? null) === null && s.paid.gt(0) && overpaid(s)) return { status: 'COMPLETED', substatus: 'PAID_OVER' };
  if (isFinal(s.current)) return null;
  let next: StatusChange;
  if (s.paid.gt(0) && s.paid.gte(needed)) {
    next = { status: 'COMPLETED', substatus: lateCover(s, needed) ? 'PAID_LATE' : overpaid(s) ? 'PAID_OVER' : null };
  } else if (s.paid.gt(0)) {
    next = { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' };
  } else if (s.pendingKind) {
    // PARTIALLY_PAID with nothing completed any more: a reorg reversed what it had.
    if (s.current !== 'PENDING' && s.current !== 'PARTIALLY_PAID') return null;
    next = { status: s.pendingKind === 'crypto' ? 'WAITING_FOR_CONFIRMATIONS' : 'PROCESSING', substatus: null };
  } else {
    next = { status: 'PENDING', substatus: null };
  }
  if (next.status === s.current) return null;
  if (!canMove(s.current, next.status, 'payment')) {
    throw new InvalidStateTransitionError('invoice', s.current, next.status, allowedTargets(s.current, 'payment'));
  }
  return next;
}

type Situation = SettlingInvoice & PaymentTotals;

/**
 * A COMPLETED invoice after a chain reorg moved one of its payments: it stays COMPLETED (final; the
 * merchant may have delivered), its substatus PAYMENT_REVERSED while its completed payments no
 * longer cover it, and what they call for (null, PAID_OVER, PAID_LATE) once they do again. One that
 * stayed covered and was completed on time (no substatus, or PAID_OVER) stays on time: a payment after
 * its completion, late or not, is money over, not a late completion.
 */
function reversedCompletion(s: Situation, needed: Amount): StatusChange | null {
  const covered = s.paid.gt(0) && s.paid.gte(needed);
  const onTime = (s.currentSubstatus ?? null) === null || s.currentSubstatus === 'PAID_OVER';
  const late = !onTime && lateCover(s, needed);
  const substatus: InvoiceSubstatus | null = !covered ? 'PAYMENT_REVERSED' : late ? 'PAID_LATE' : overpaid(s) ? 'PAID_OVER' : null;
  if (substatus === (s.currentSubstatus ?? null)) return null;
  return { status: 'COMPLETED', substatus };
}

/**
 * The cover needed a late payment: one came after expires_at and the payments made by then do not cover the
 * invoice alone (those that do were paid on time; what came later is money over). Decided from the
 * payments, never from the substatus, which a reversal (PAYMENT_REVERSED) overwrites.
 */
function lateCover(s: Situation, needed: Amount): boolean {
  return s.paidLate && !(s.paidOnTime.gt(0) && s.paidOnTime.gte(needed));
}

/**
 * Paid beyond price_usd by one smallest unit per completed payment or more: rounding an amount due up to its
 * smallest unit adds less than one, so a whole unit over is a payment over.
 */
function overpaid(s: Situation): boolean {
  return s.paid.gt(s.priceUsd) && s.paid.gte(s.priceUsd.add(s.rounding));
}
