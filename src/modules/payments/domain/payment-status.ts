import { InvalidStateTransitionError } from '../../../shared/errors/domain-error';

/**
 * The payment lifecycle (decisions §8): PENDING -> COMPLETED | FAILED | CANCELLED. A provider may
 * report a payment first as PENDING or straight away as COMPLETED. COMPLETED, FAILED and CANCELLED
 * are final. Reporting the status a payment already has changes nothing (providers re-send).
 */
export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const INITIAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['PENDING', 'COMPLETED'];
export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  PENDING: ['COMPLETED', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

export function isPaymentStatus(value: unknown): value is PaymentStatus {
  return typeof value === 'string' && (PAYMENT_STATUSES as readonly string[]).includes(value);
}

export function isFinalPayment(status: PaymentStatus): boolean {
  return FINAL_PAYMENT_STATUSES.includes(status);
}

export function allowedPaymentTargets(from: PaymentStatus): PaymentStatus[] {
  return [...TRANSITIONS[from]];
}

/** The status a new payment is recorded with; anything but PENDING or COMPLETED is refused (validator.status). */
export function initialPaymentStatus(status: PaymentStatus): PaymentStatus {
  if (!INITIAL_PAYMENT_STATUSES.includes(status)) {
    throw new InvalidStateTransitionError('a new payment', 'nothing', status, INITIAL_PAYMENT_STATUSES);
  }
  return status;
}

/**
 * The outcome of a reported status for an existing payment: `changed` false when it already has
 * that status; InvalidStateTransitionError (400, validator.status) for any other move the table
 * does not allow, e.g. out of a final status.
 */
export function movePayment(from: PaymentStatus, to: PaymentStatus): { status: PaymentStatus; changed: boolean } {
  if (from === to) return { status: from, changed: false };
  if (!TRANSITIONS[from].includes(to)) throw new InvalidStateTransitionError('payment', from, to, allowedPaymentTargets(from));
  return { status: to, changed: true };
}

/**
 * Moves only a chain rail may ask for, with a chain report (a reorg): a payment whose transaction
 * left the canonical chain is CANCELLED, even when it had COMPLETED (a reversal); one cancelled that
 * way comes back (PENDING, or COMPLETED when already deep enough) when its transaction is mined again.
 * Providers' status reports keep the table above, where final states never change.
 */
const CHAIN_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  PENDING: ['CANCELLED'],
  COMPLETED: ['CANCELLED'],
  CANCELLED: ['PENDING', 'COMPLETED'],
  FAILED: [],
};

/** Like movePayment, for a chain report: the moves of CHAIN_TRANSITIONS and those of the ordinary table. */
export function movePaymentOnChain(from: PaymentStatus, to: PaymentStatus): { status: PaymentStatus; changed: boolean } {
  if (from === to) return { status: from, changed: false };
  if (CHAIN_TRANSITIONS[from].includes(to)) return { status: to, changed: true };
  return movePayment(from, to);
}
