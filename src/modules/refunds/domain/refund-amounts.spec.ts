import type { DomainError } from '../../../shared/errors/domain-error';
import { Money } from '../../../shared/money/money';
import { fromUnits, paidAtSnapshot, payoutAmount, planRefund, refundableUsd, refundsToRelease, toUnits } from './refund-amounts';

const m = (s: string) => new Money(s);

/** The error a call throws (fails the test when it throws none). */
function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected an error');
}

describe('paidAtSnapshot', () => {
  const at = (iso: string) => new Date(iso);
  it("takes the rates of the last completed payment, which for a payment within the rate lock are the invoice's", () => {
    const payments = [
      { status: 'COMPLETED', ratesSnapshotId: 'rates_invoice', happenedAt: at('2026-11-20T10:00:00Z') },
      { status: 'COMPLETED', ratesSnapshotId: 'rates_late', happenedAt: at('2026-11-21T10:00:00Z') },
      { status: 'PENDING', ratesSnapshotId: 'rates_pending', happenedAt: at('2026-11-22T10:00:00Z') },
    ];
    expect(paidAtSnapshot(payments, 'rates_invoice')).toBe('rates_late');
    expect(paidAtSnapshot(payments.slice(0, 1), 'rates_invoice')).toBe('rates_invoice');
  });

  it('goes by when a payment happened, not by the order it was reported in; the later-listed wins a tie', () => {
    const payments = [
      { status: 'COMPLETED', ratesSnapshotId: 'rates_b', happenedAt: at('2026-11-21T10:00:00Z') },
      { status: 'COMPLETED', ratesSnapshotId: 'rates_a', happenedAt: at('2026-11-20T10:00:00Z') },
      { status: 'COMPLETED', ratesSnapshotId: 'rates_c', happenedAt: at('2026-11-21T10:00:00Z') },
    ];
    expect(paidAtSnapshot(payments, null)).toBe('rates_c');
  });

  it("falls back to the invoice's snapshot when nothing is completed", () => {
    expect(paidAtSnapshot([{ status: 'PENDING', ratesSnapshotId: 'rates_p', happenedAt: at('2026-11-20T10:00:00Z') }], 'rates_invoice')).toBe('rates_invoice');
    expect(paidAtSnapshot([], null)).toBeNull();
  });
});

describe('refundableUsd', () => {
  it('counts only COMPLETED payments and subtracts every refund but canceled and expired ones', () => {
    const payments = [
      { status: 'COMPLETED', priceUsd: m('60') },
      { status: 'COMPLETED', priceUsd: m('40.5') },
      { status: 'PENDING', priceUsd: m('1000') },
      { status: 'CANCELLED', priceUsd: m('1000') },
    ];
    const refunds = [
      { status: 'AWAITING_DESTINATION' as const, amountUsd: m('10') },
      { status: 'AWAITING_PAYOUT' as const, amountUsd: m('5') },
      { status: 'SENT' as const, amountUsd: m('1') },
      { status: 'COMPLETED' as const, amountUsd: m('2') },
      { status: 'CANCELED' as const, amountUsd: m('50') },
      { status: 'EXPIRED' as const, amountUsd: m('50') },
    ];
    expect(refundableUsd(payments, refunds).toFixed()).toBe('82.5');
  });

  it('is never negative (a completed payment taken back after a refund)', () => {
    expect(refundableUsd([], [{ status: 'COMPLETED', amountUsd: m('3') }]).toFixed()).toBe('0');
  });
});

describe('refundsToRelease', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute));
  const paid = (...usd: string[]) => usd.map((u) => ({ status: 'COMPLETED', priceUsd: new Money(u) }));

  it('lets open refunds go newest first until what the rest hold is covered', () => {
    const refunds = [
      { id: 'refund_a', status: 'AWAITING_DESTINATION' as const, amountUsd: new Money('8'), createdAt: at(1) },
      { id: 'refund_b', status: 'AWAITING_PAYOUT' as const, amountUsd: new Money('5'), createdAt: at(2) },
      { id: 'refund_c', status: 'AWAITING_DESTINATION' as const, amountUsd: new Money('1'), createdAt: at(3) },
    ];
    // 14 held against 10 paid: c (1) leaves 13, b (5) leaves 8; a stays.
    const out = refundsToRelease(paid('10'), refunds);
    expect(out.release).toEqual(['refund_c', 'refund_b']);
    expect(out.uncovered.isZero()).toBe(true);
    // Covered: nothing goes.
    expect(refundsToRelease(paid('10', '4'), refunds).release).toEqual([]);
  });

  it('never lets a sent or completed refund go, and says what stays beyond the payments', () => {
    const refunds = [
      { id: 'refund_sent', status: 'SENT' as const, amountUsd: new Money('6'), createdAt: at(1) },
      { id: 'refund_done', status: 'COMPLETED' as const, amountUsd: new Money('3'), createdAt: at(2) },
      { id: 'refund_open', status: 'AWAITING_PAYOUT' as const, amountUsd: new Money('2'), createdAt: at(3) },
      { id: 'refund_gone', status: 'CANCELED' as const, amountUsd: new Money('50'), createdAt: at(4) },
    ];
    const out = refundsToRelease([{ status: 'CANCELLED', priceUsd: new Money('20') }, ...paid('5')], refunds);
    expect(out.release).toEqual(['refund_open']);
    expect(out.uncovered.toString()).toBe('4');
  });
});

describe('planRefund', () => {
  it('refunds everything refundable by default, its USD value exact', () => {
    const plan = planRefund({ amount: null, currency: 'EUR', rateUsd: m('1.08'), refundableUsd: m('100') });
    expect(plan.amountUsd.toFixed()).toBe('100');
    expect(plan.amount.toFixed()).toBe('92.592592592592592592592592592593');
  });

  it('refuses, naming the field, an amount or a rest that rounds to 0 at 30 digits (the database refuses a zero)', () => {
    const tiny = m('0.000000000000000000000000000001');
    // 1e-30 DOGE at 0.1 USD is worth 1e-31 USD: 0 at 30 digits.
    expect(() => planRefund({ amount: tiny, currency: 'DOGECOIN', rateUsd: m('0.1'), refundableUsd: m('100') })).toThrow(
      expect.objectContaining({ fields: { amount: expect.stringContaining('rounds to 0') } }),
    );
    // 1e-30 USD left, asked in BTC at 95,000: 0 BTC at 30 digits.
    expect(() => planRefund({ amount: null, currency: 'BITCOIN', rateUsd: m('95000'), refundableUsd: tiny })).toThrow(
      expect.objectContaining({ fields: { currency: expect.stringContaining('rounds to 0 BITCOIN') } }),
    );
    // The same rest in USD is refundable.
    expect(planRefund({ amount: null, currency: 'USD', rateUsd: m('1'), refundableUsd: tiny }).amount.toFixed()).toBe('0.000000000000000000000000000001');
  });

  it('values a partial amount at the rate', () => {
    const plan = planRefund({ amount: m('25'), currency: 'EUR', rateUsd: m('1.08'), refundableUsd: m('100') });
    expect(plan.amount.toFixed()).toBe('25');
    expect(plan.amountUsd.toFixed()).toBe('27');
  });

  it('accepts exactly the refundable amount', () => {
    expect(planRefund({ amount: m('100'), currency: 'USD', rateUsd: m('1'), refundableUsd: m('100') }).amountUsd.toFixed()).toBe('100');
  });

  it('refuses more than refundable (refund_exceeds_paid, validator.amount)', () => {
    const error = caught(() => planRefund({ amount: m('100.01'), currency: 'USD', rateUsd: m('1'), refundableUsd: m('100') }));
    expect([error.code, error.fields]).toEqual(['refund_exceeds_paid', { amount: 'is more than the refundable 100.00 USD' }]);
  });

  it('refuses when nothing is refundable (nothing_to_refund)', () => {
    expect(caught(() => planRefund({ amount: m('1'), currency: 'USD', rateUsd: m('1'), refundableUsd: m('0') })).code).toBe('nothing_to_refund');
  });

  it('refuses a zero amount (validator.amount)', () => {
    const error = caught(() => planRefund({ amount: m('0'), currency: 'USD', rateUsd: m('1'), refundableUsd: m('5') }));
    expect([error.code, error.fields]).toEqual(['validation_failed', { amount: 'must be greater than 0' }]);
  });
});

describe('payoutAmount', () => {
  it.each([
    // amount_usd, coin rate, decimals, expected: rounded DOWN to the coin's smallest unit
    ['25', '1', 6, '25'],
    ['10', '3', 6, '3.333333'],
    ['20', '3', 6, '6.666666'],
    ['100', '3000', 18, '0.033333333333333333'],
    ['1', '95000', 8, '0.00001052'],
  ])('%s USD at %s USD per coin with %s decimals is %s', (usd, rate, decimals, expected) => {
    expect(payoutAmount(m(usd), m(rate), decimals)?.toFixed()).toBe(expected);
  });

  it('is null below one smallest unit', () => {
    expect(payoutAmount(m('0.0000001'), m('95000'), 8)).toBeNull();
  });

  it('converts to and from units exactly', () => {
    expect(toUnits(m('0.033333333333333333'), 18)).toBe('33333333333333333');
    expect(toUnits(m('6.666666'), 6)).toBe('6666666');
    expect(fromUnits(6666666n, 6).toFixed()).toBe('6.666666');
  });
});
