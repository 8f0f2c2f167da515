import type { PaymentStatus } from './payment-status';

/**
 * How confirmations decide whether a crypto payment counts (docs/timing.md). A payment carries the
 * confirmations last reported and the requirement it was first seen with (the provider's, or the
 * organization's override); it is COMPLETED, and so counts toward its invoice, only once its
 * confirmations reach that requirement. Confirmations never go down: a lower report keeps the
 * higher count. A requirement of 0 (fiat, or payments from before confirmations were tracked)
 * leaves the status as reported.
 */
export interface ConfirmationReport {
  /** The status the report asks for (a repeat or a confirmations report passes the current one). */
  requested: PaymentStatus;
  /** Confirmations in the report; null when the report has none. */
  reported: number | null;
  /** Confirmations stored so far (0 for a new payment). */
  current: number;
  /** Confirmations the payment needs. */
  required: number;
}

export interface ConfirmedStatus {
  status: PaymentStatus;
  confirmations: number;
}

export function applyConfirmations(r: ConfirmationReport): ConfirmedStatus {
  let confirmations = Math.max(r.current, r.reported ?? 0);
  if (r.required === 0 || r.requested === 'FAILED' || r.requested === 'CANCELLED') return { status: r.requested, confirmations };
  // A provider reporting COMPLETED without a count vouches for the payment: it is as deep as required.
  if (r.requested === 'COMPLETED' && r.reported === null) confirmations = Math.max(confirmations, r.required);
  if (r.requested === 'PENDING' && r.reported === null) return { status: 'PENDING', confirmations };
  return { status: confirmations >= r.required ? 'COMPLETED' : 'PENDING', confirmations };
}

/** Largest confirmation count a report may carry. */
export const MAX_CONFIRMATIONS = 1_000_000;
