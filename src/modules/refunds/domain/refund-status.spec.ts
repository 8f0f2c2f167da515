import type { DomainError } from '../../../shared/errors/domain-error';
import { allowedRefundTargets, holdsRefundable, moveRefund, REFUND_STATUSES, RefundStatus } from './refund-status';

const ALLOWED: Array<[RefundStatus, RefundStatus]> = [
  ['AWAITING_DESTINATION', 'AWAITING_PAYOUT'],
  ['AWAITING_DESTINATION', 'CANCELED'],
  ['AWAITING_DESTINATION', 'EXPIRED'],
  ['AWAITING_PAYOUT', 'SENT'],
  ['AWAITING_PAYOUT', 'CANCELED'],
  ['SENT', 'COMPLETED'],
  ['SENT', 'AWAITING_PAYOUT'],
];

describe('refund status machine', () => {
  it.each(ALLOWED)('%s -> %s is allowed', (from, to) => {
    expect(moveRefund(from, to)).toBe(to);
  });

  const forbidden = REFUND_STATUSES.flatMap((from) =>
    REFUND_STATUSES.filter((to) => !ALLOWED.some(([f, t]) => f === from && t === to)).map((to) => [from, to] as [RefundStatus, RefundStatus]),
  );
  it.each(forbidden)('%s -> %s is refused with validator.status', (from, to) => {
    let error: DomainError | null = null;
    try {
      moveRefund(from, to);
    } catch (e) {
      error = e as DomainError;
    }
    expect(error?.code).toBe('invalid_state_transition');
    expect(error?.fields?.status).toContain(`cannot move from ${from} to ${to}`);
  });

  it('lets the merchant cancel only before the payout is sent', () => {
    expect(REFUND_STATUSES.filter((s) => allowedRefundTargets(s).includes('CANCELED'))).toEqual(['AWAITING_DESTINATION', 'AWAITING_PAYOUT']);
  });

  it('releases the refundable amount only when canceled or expired', () => {
    expect(REFUND_STATUSES.filter((s) => !holdsRefundable(s))).toEqual(['CANCELED', 'EXPIRED']);
  });
});
