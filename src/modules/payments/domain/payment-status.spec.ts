import { InvalidStateTransitionError } from '../../../shared/errors/domain-error';
import {
  allowedPaymentTargets,
  initialPaymentStatus,
  isFinalPayment,
  isPaymentStatus,
  movePayment,
  movePaymentOnChain,
  PAYMENT_STATUSES,
  PaymentStatus,
} from './payment-status';

const ALLOWED: Array<[PaymentStatus, PaymentStatus]> = [
  ['PENDING', 'COMPLETED'],
  ['PENDING', 'FAILED'],
  ['PENDING', 'CANCELLED'],
];

const pairs = PAYMENT_STATUSES.flatMap((from) => PAYMENT_STATUSES.map((to) => [from, to] as [PaymentStatus, PaymentStatus]));
const REFUSED = pairs.filter(([from, to]) => from !== to && !ALLOWED.some(([f, t]) => f === from && t === to));

describe('payment status machine', () => {
  it.each(ALLOWED)('moves %s -> %s', (from, to) => {
    expect(movePayment(from, to)).toEqual({ status: to, changed: true });
  });

  it.each(REFUSED)('refuses %s -> %s with validator.status', (from, to) => {
    let error: unknown;
    try {
      movePayment(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidStateTransitionError);
    const fields = (error as InvalidStateTransitionError).fields!;
    expect(fields.status).toContain(`from ${from} to ${to}`);
    expect(fields.status).toContain(from === 'PENDING' ? 'allowed: COMPLETED, FAILED, CANCELLED' : 'the state is final');
  });

  it('has nine refused moves (every move out of a final status, and none back to PENDING)', () => {
    expect(REFUSED).toHaveLength(9);
  });

  it.each(PAYMENT_STATUSES.map((s) => [s]))('reporting %s again changes nothing', (status) => {
    expect(movePayment(status, status)).toEqual({ status, changed: false });
  });

  it.each([['PENDING'], ['COMPLETED']] as Array<[PaymentStatus]>)('a new payment may start %s', (status) => {
    expect(initialPaymentStatus(status)).toBe(status);
  });

  it.each([['FAILED'], ['CANCELLED']] as Array<[PaymentStatus]>)('a new payment may not start %s', (status) => {
    expect(() => initialPaymentStatus(status)).toThrow(InvalidStateTransitionError);
  });

  it('knows final statuses and targets', () => {
    expect(PAYMENT_STATUSES.filter(isFinalPayment)).toEqual(['COMPLETED', 'FAILED', 'CANCELLED']);
    expect(allowedPaymentTargets('PENDING')).toEqual(['COMPLETED', 'FAILED', 'CANCELLED']);
    expect(allowedPaymentTargets('FAILED')).toEqual([]);
    expect(isPaymentStatus('PENDING')).toBe(true);
    expect(isPaymentStatus('pending')).toBe(false);
  });
});

describe('movePaymentOnChain (a chain report after a reorg)', () => {
  it.each([
    ['PENDING', 'CANCELLED'],
    ['COMPLETED', 'CANCELLED'],
    ['CANCELLED', 'PENDING'],
    ['CANCELLED', 'COMPLETED'],
    ['PENDING', 'COMPLETED'],
  ] as Array<[PaymentStatus, PaymentStatus]>)('allows %s -> %s', (from, to) => {
    expect(movePaymentOnChain(from, to)).toEqual({ status: to, changed: true });
  });

  it.each([
    ['FAILED', 'PENDING'],
    ['FAILED', 'CANCELLED'],
    ['COMPLETED', 'PENDING'],
    ['CANCELLED', 'FAILED'],
  ] as Array<[PaymentStatus, PaymentStatus]>)('refuses %s -> %s', (from, to) => {
    expect(() => movePaymentOnChain(from, to)).toThrow(InvalidStateTransitionError);
  });

  it('leaves the ordinary table as it was: a provider may not move a COMPLETED payment', () => {
    expect(() => movePayment('COMPLETED', 'CANCELLED')).toThrow(InvalidStateTransitionError);
  });
});
