import { Money } from '../../../shared/money/money';
import type { PaymentStatus } from './payment-status';
import { settle, SettlingPayment, unitValueUsd } from './settlement';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

function payment(id: string, status: PaymentStatus, usd: string, o: Partial<SettlingPayment> = {}): SettlingPayment {
  return {
    id,
    providerId: 'prov_ethereum_usdt',
    status,
    priceUsd: new Money(usd),
    unitUsd: new Money(0),
    providerKind: 'crypto',
    happenedAt: at(0),
    createdAt: at(0),
    offChain: false,
    ...o,
  };
}

describe('settle (an invoice from all its payments)', () => {
  it('no payments: nothing paid, nothing pending, not late', () => {
    const s = settle([], at(60));
    expect([s.paid, s.pending, s.refunded, s.reversed, s.rounding].map((a) => a.toFixed())).toEqual(['0', '0', '0', '0', '0']);
    expect(s).toMatchObject({ pendingKind: null, paidLate: false, chainMove: false });
  });

  it('sums COMPLETED payments exactly, at 30 fractional digits, ignoring the other statuses', () => {
    const s = settle(
      [
        payment('a', 'COMPLETED', '0.100000000000000000000000000001'),
        payment('b', 'COMPLETED', '0.2'),
        payment('c', 'FAILED', '1000'),
        payment('d', 'CANCELLED', '1000'),
        payment('e', 'PENDING', '1000'),
        payment('f', 'COMPLETED', '123456789012345678901234567890123456789012345678.000000000000000000000000000001'),
      ],
      null,
    );
    expect(s.paid.toFixed()).toBe('123456789012345678901234567890123456789012345678.300000000000000000000000000002');
    expect(s.pending.toFixed()).toBe('1000');
    // Cancelled by someone, not by the chain: nothing reversed.
    expect(s.reversed.toFixed()).toBe('0');
  });

  it.each<[string, SettlingPayment[], 'crypto' | 'fiat' | null]>([
    ['no pending payment', [payment('a', 'COMPLETED', '1')], null],
    ['the one pending payment', [payment('a', 'PENDING', '1', { providerKind: 'fiat' })], 'fiat'],
    [
      'the newest pending by creation time',
      [payment('a', 'PENDING', '1', { providerKind: 'fiat', createdAt: at(5) }), payment('b', 'PENDING', '1', { providerKind: 'crypto', createdAt: at(1) })],
      'fiat',
    ],
    [
      'created at the same time: the greater id',
      [payment('b', 'PENDING', '1', { providerKind: 'crypto' }), payment('a', 'PENDING', '1', { providerKind: 'fiat' })],
      'crypto',
    ],
    [
      'a newer FAILED payment does not count as pending',
      [payment('a', 'PENDING', '1', { providerKind: 'crypto', createdAt: at(1) }), payment('b', 'FAILED', '1', { providerKind: 'fiat', createdAt: at(9) })],
      'crypto',
    ],
    ['a provider the catalog no longer has', [payment('a', 'PENDING', '1', { providerKind: null })], null],
    [
      'a newer one through a provider the catalog no longer has: the newest of a known kind',
      [payment('a', 'PENDING', '1', { providerKind: 'fiat', createdAt: at(1) }), payment('b', 'PENDING', '1', { providerKind: null, createdAt: at(9) })],
      'fiat',
    ],
  ])('pending kind: %s', (_name, payments, kind) => {
    expect(settle(payments, null).pendingKind).toBe(kind);
  });

  it.each<[string, SettlingPayment[], Date | null, boolean]>([
    ['a completed payment after expiry', [payment('a', 'COMPLETED', '1', { happenedAt: at(61), createdAt: at(61) })], at(60), true],
    ['exactly at expiry is on time', [payment('a', 'COMPLETED', '1', { happenedAt: at(60), createdAt: at(60) })], at(60), false],
    ['before expiry', [payment('a', 'COMPLETED', '1', { happenedAt: at(10), createdAt: at(10) })], at(60), false],
    ['happened before expiry, reported after it', [payment('a', 'COMPLETED', '1', { happenedAt: at(50), createdAt: at(70) })], at(60), false],
    // A time stamped ahead of the clock (a block's, a provider's) does not make a payment recorded in time late.
    ['stamped after expiry, recorded before it', [payment('a', 'COMPLETED', '1', { happenedAt: at(62), createdAt: at(58) })], at(60), false],
    ['a pending payment after expiry is not (yet) late', [payment('a', 'PENDING', '1', { happenedAt: at(90), createdAt: at(90) })], at(60), false],
    ['an invoice that never expires', [payment('a', 'COMPLETED', '1', { happenedAt: at(9999), createdAt: at(9999) })], null, false],
  ])('paid late: %s', (_name, payments, expiresAt, late) => {
    expect(settle(payments, expiresAt).paidLate).toBe(late);
    // What was paid by the expiry is counted apart: on time, it covers the invoice alone.
    expect(settle(payments, expiresAt).paidOnTime.toString()).toBe(late ? '0' : settle(payments, expiresAt).paid.toString());
  });
});

describe('pending and reversed totals', () => {
  it('adds up the payments under way and those a reorg took back off the chain', () => {
    const s = settle(
      [
        payment('a', 'PENDING', '1.5'),
        payment('b', 'PENDING', '2.000000000000000000000000000001'),
        payment('c', 'CANCELLED', '7', { offChain: true }),
        payment('d', 'CANCELLED', '100'),
        payment('e', 'COMPLETED', '3'),
      ],
      null,
    );
    expect(s.pending.toFixed()).toBe('3.500000000000000000000000000001');
    expect(s.reversed.toFixed()).toBe('7');
    expect(s.paid.toFixed()).toBe('3');
    expect(s.refunded.toFixed()).toBe('0');
  });

  it('lists the providers the payments went through, any status, once each and sorted', () => {
    const s = settle(
      [
        payment('a', 'FAILED', '1', { providerId: 'prov_polygon_usdt' }),
        payment('b', 'COMPLETED', '1', { providerId: 'prov_bitcoin_btc' }),
        payment('c', 'PENDING', '1', { providerId: 'prov_polygon_usdt' }),
      ],
      null,
    );
    expect(s.providers).toEqual(['prov_bitcoin_btc', 'prov_polygon_usdt']);
    expect(settle([], null).providers).toEqual([]);
  });
});

describe('rounding allowance (an amount due is rounded up to its smallest unit)', () => {
  it("is the USD value of one smallest unit at the payment's own rate", () => {
    // 0.004 ETH worth 10 USD (2,500 USD per ETH): one wei is 2.5e-15 USD
    expect(unitValueUsd(new Money('0.004'), new Money('10'), 18).toFixed()).toBe('0.0000000000000025');
    // 9.99 USDT worth 9.99 USD: one unit of 6 decimals is 0.000001 USD
    expect(unitValueUsd(new Money('9.99'), new Money('9.99'), 6).toFixed()).toBe('0.000001');
    expect(unitValueUsd(new Money('0'), new Money('0'), 6).toFixed()).toBe('0');
  });

  it('adds up over the COMPLETED payments only', () => {
    const s = settle(
      [
        payment('a', 'COMPLETED', '5', { unitUsd: new Money('0.000001') }),
        payment('b', 'COMPLETED', '5', { unitUsd: new Money('0.0000000000000025') }),
        payment('c', 'PENDING', '5', { unitUsd: new Money('1') }),
        payment('d', 'CANCELLED', '5', { unitUsd: new Money('1') }),
      ],
      null,
    );
    expect(s.rounding.toFixed()).toBe('0.0000010000000025');
  });
});
