import { InvalidStateTransitionError } from '../../../shared/errors/domain-error';

/**
 * The refund lifecycle (decisions §19):
 *
 *   AWAITING_DESTINATION --(payer gives an address)--> AWAITING_PAYOUT --(merchant reports the transaction)--> SENT
 *   SENT --(the chain confirms it to the destination for at least the amount)--> COMPLETED
 *   AWAITING_DESTINATION | AWAITING_PAYOUT --(merchant cancels)--> CANCELED
 *   AWAITING_DESTINATION --(claim not made in time)--> EXPIRED
 *   SENT --(the chain shows the reported transaction failed, mined too early, paying the destination less or
 *          through transfers another refund holds; or it is out of the node's sight for the grace)--> AWAITING_PAYOUT
 *
 * COMPLETED, CANCELED and EXPIRED are final. A refund once SENT cannot be canceled: the money may be
 * on its way, and only the chain decides.
 */
export const REFUND_STATUSES = ['AWAITING_DESTINATION', 'AWAITING_PAYOUT', 'SENT', 'COMPLETED', 'CANCELED', 'EXPIRED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Refunds in these states no longer hold any of the invoice's refundable amount. */
export const RELEASED_REFUND_STATUSES: readonly RefundStatus[] = ['CANCELED', 'EXPIRED'];
export const FINAL_REFUND_STATUSES: readonly RefundStatus[] = ['COMPLETED', 'CANCELED', 'EXPIRED'];

const TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  AWAITING_DESTINATION: ['AWAITING_PAYOUT', 'CANCELED', 'EXPIRED'],
  AWAITING_PAYOUT: ['SENT', 'CANCELED'],
  SENT: ['COMPLETED', 'AWAITING_PAYOUT'],
  COMPLETED: [],
  CANCELED: [],
  EXPIRED: [],
};

export function isRefundStatus(value: unknown): value is RefundStatus {
  return typeof value === 'string' && (REFUND_STATUSES as readonly string[]).includes(value);
}

export function allowedRefundTargets(from: RefundStatus): RefundStatus[] {
  return [...TRANSITIONS[from]];
}

export function canMoveRefund(from: RefundStatus, to: RefundStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The new status, or InvalidStateTransitionError (400, validator.status) for a move the table does not allow. */
export function moveRefund(from: RefundStatus, to: RefundStatus): RefundStatus {
  if (!canMoveRefund(from, to)) throw new InvalidStateTransitionError('refund', from, to, allowedRefundTargets(from));
  return to;
}

/** Whether a refund still holds part of the invoice's refundable amount. */
export function holdsRefundable(status: RefundStatus): boolean {
  return !RELEASED_REFUND_STATUSES.includes(status);
}
