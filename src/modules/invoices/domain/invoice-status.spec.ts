import { InvalidStateTransitionError } from '../../../shared/errors/domain-error';
import { Money } from '../../../shared/money/money';
import { Actor, allowedTargets, canMove, INVOICE_STATUSES, InvoiceStatus, merchantMove, nextStatusForPayments, SettlingInvoice } from './invoice-status';
import { NO_PAYMENTS, PaymentTotals } from './payment-totals';

const ALLOWED: Array<[InvoiceStatus, InvoiceStatus, Actor]> = [
  ['PENDING', 'WAITING_FOR_CONFIRMATIONS', 'payment'],
  ['PENDING', 'PROCESSING', 'payment'],
  ['PENDING', 'COMPLETED', 'payment'],
  ['PARTIALLY_PAID', 'COMPLETED', 'payment'],
  ['PROCESSING', 'COMPLETED', 'payment'],
  ['WAITING_FOR_CONFIRMATIONS', 'COMPLETED', 'payment'],
  ['PENDING', 'PARTIALLY_PAID', 'payment'],
  ['PROCESSING', 'PARTIALLY_PAID', 'payment'],
  ['WAITING_FOR_CONFIRMATIONS', 'PARTIALLY_PAID', 'payment'],
  ['PROCESSING', 'PENDING', 'payment'],
  ['WAITING_FOR_CONFIRMATIONS', 'PENDING', 'payment'],
  // A chain reorg reversed what a part-paid invoice had completed.
  ['PARTIALLY_PAID', 'PENDING', 'payment'],
  ['PARTIALLY_PAID', 'WAITING_FOR_CONFIRMATIONS', 'payment'],
  ['PARTIALLY_PAID', 'PROCESSING', 'payment'],
  ['PENDING', 'PENDING', 'clock'],
  ['PENDING', 'VOIDED', 'clock'],
  ['PENDING', 'VOIDED', 'merchant'],
  ['PENDING', 'COMPLETED', 'merchant'],
  ['PARTIALLY_PAID', 'COMPLETED', 'merchant'],
];

const key = (from: string, to: string, by: string) => `${from}->${to} by ${by}`;
const allowedKeys = new Set(ALLOWED.map(([f, t, b]) => key(f, t, b)));
const REFUSED: Array<[InvoiceStatus, InvoiceStatus, Actor]> = [];
for (const from of INVOICE_STATUSES) {
  for (const to of INVOICE_STATUSES) {
    for (const by of ['merchant', 'payment', 'clock'] as Actor[]) {
      if (!allowedKeys.has(key(from, to, by))) REFUSED.push([from, to, by]);
    }
  }
}

describe('invoice state machine', () => {
  it('refuses exactly the moves outside the table', () => {
    expect(REFUSED).toHaveLength(6 * 6 * 3 - ALLOWED.length);
  });

  it.each(ALLOWED)('allows %s -> %s by %s', (from, to, by) => {
    expect(canMove(from, to, by)).toBe(true);
    expect(allowedTargets(from, by)).toContain(to);
  });

  it.each(REFUSED)('refuses %s -> %s by %s', (from, to, by) => {
    expect(canMove(from, to, by)).toBe(false);
    expect(allowedTargets(from, by)).not.toContain(to);
  });

  it.each([
    ['PENDING', 'VOIDED', null],
    ['PENDING', 'COMPLETED', 'MARKED_PAID'],
    ['PARTIALLY_PAID', 'COMPLETED', 'MARKED_PAID'],
  ] as const)('merchant moves %s -> %s with substatus %s', (from, to, substatus) => {
    expect(merchantMove(from, to)).toEqual({ status: to, substatus });
  });

  it.each(REFUSED.filter(([, , by]) => by === 'merchant'))('merchant move %s -> %s is an invalid_state_transition naming the allowed targets', (from, to) => {
    let error: unknown;
    try {
      merchantMove(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidStateTransitionError);
    const e = error as InvalidStateTransitionError;
    expect(e.code).toBe('invalid_state_transition');
    const allowed = allowedTargets(from, 'merchant');
    expect(e.fields?.status).toContain(allowed.length ? allowed.join(', ') : 'final');
  });

  it('has no move out of a final state', () => {
    for (const by of ['merchant', 'payment', 'clock'] as Actor[]) {
      expect(allowedTargets('COMPLETED', by)).toEqual([]);
      expect(allowedTargets('VOIDED', by)).toEqual([]);
    }
  });
});

describe('nextStatusForPayments', () => {
  const m = (v: string) => new Money(v);
  type Situation = SettlingInvoice & Partial<PaymentTotals>;
  const base: Situation = { current: 'PENDING', priceUsd: m('100') };
  /** The invoice's side and the payments' totals of one case. */
  const next = ({ current, currentSubstatus, priceUsd, tolerance, ...totals }: Situation) =>
    nextStatusForPayments({ current, currentSubstatus, priceUsd, tolerance }, { ...NO_PAYMENTS, ...totals });

  it.each([
    ['crypto payment pending', { pendingKind: 'crypto' }, { status: 'WAITING_FOR_CONFIRMATIONS', substatus: null }],
    ['fiat payment pending', { pendingKind: 'fiat' }, { status: 'PROCESSING', substatus: null }],
    ['exactly covered', { paid: m('100') }, { status: 'COMPLETED', substatus: null }],
    ['over-paid', { paid: m('100.000000000000000000000000000001') }, { status: 'COMPLETED', substatus: 'PAID_OVER' }],
    [
      'beyond the price by less than rounding the amounts due up allows',
      { paid: m('100.0000000000000029'), rounding: m('0.000000000000003') },
      { status: 'COMPLETED', substatus: null },
    ],
    [
      'beyond the price by exactly one smallest unit per payment (paid a cent over on a card)',
      { paid: m('10.01'), priceUsd: m('10'), rounding: m('0.01') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
    [
      'beyond the price by more than rounding allows',
      { paid: m('100.0000000000000031'), rounding: m('0.000000000000003') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
    ['short by the smallest unit', { paid: m('99.999999999999999999999999999999') }, { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' }],
    ['within tolerance', { paid: m('99'), tolerance: m('0.01') }, { status: 'COMPLETED', substatus: null }],
    ['outside tolerance', { paid: m('98.99'), tolerance: m('0.01') }, { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' }],
    ['waiting, then completed', { current: 'WAITING_FOR_CONFIRMATIONS', paid: m('100') }, { status: 'COMPLETED', substatus: null }],
    ['processing, then partly completed', { current: 'PROCESSING', paid: m('10') }, { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' }],
    ['waiting, payment failed', { current: 'WAITING_FOR_CONFIRMATIONS' }, { status: 'PENDING', substatus: null }],
    ['processing, payment cancelled', { current: 'PROCESSING' }, { status: 'PENDING', substatus: null }],
    ['partially paid, rest arrives', { current: 'PARTIALLY_PAID', paid: m('100') }, { status: 'COMPLETED', substatus: null }],
    ['late payment covers an expired invoice', { paidLate: true, paid: m('100') }, { status: 'COMPLETED', substatus: 'PAID_LATE' }],
    ['late over-payment is reported as late', { paidLate: true, paid: m('150') }, { status: 'COMPLETED', substatus: 'PAID_LATE' }],
    ['late partial payment', { paidLate: true, paid: m('40') }, { status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' }],
    ['late rest after an on-time part', { current: 'PARTIALLY_PAID', paidLate: true, paid: m('100') }, { status: 'COMPLETED', substatus: 'PAID_LATE' }],
    [
      'late payment confirmed while waiting',
      { current: 'WAITING_FOR_CONFIRMATIONS', paidLate: true, paid: m('100') },
      { status: 'COMPLETED', substatus: 'PAID_LATE' },
    ],
    ['reorg reversed the only completed part', { current: 'PARTIALLY_PAID', chainMove: true }, { status: 'PENDING', substatus: null }],
    [
      'reorg reversed the completed part, another payment pending',
      { current: 'PARTIALLY_PAID', chainMove: true, pendingKind: 'crypto' },
      { status: 'WAITING_FOR_CONFIRMATIONS', substatus: null },
    ],
    [
      'reorg reversed a payment of a completed invoice: it stays COMPLETED, PAYMENT_REVERSED',
      { current: 'COMPLETED', currentSubstatus: null, chainMove: true, paid: m('40') },
      { status: 'COMPLETED', substatus: 'PAYMENT_REVERSED' },
    ],
    [
      'the reversed payment mined again covers it: substatus back to what its payments say',
      { current: 'COMPLETED', currentSubstatus: 'PAYMENT_REVERSED', chainMove: true, paid: m('120') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
    [
      'a new payment covers a reversed completed invoice: substatus back to what its payments say',
      { current: 'COMPLETED', currentSubstatus: 'PAYMENT_REVERSED', paid: m('100') },
      { status: 'COMPLETED', substatus: null },
    ],
    [
      'completed on time, paid over late, then a reorg of another payment: still PAID_OVER, not PAID_LATE',
      { current: 'COMPLETED', currentSubstatus: 'PAID_OVER', chainMove: true, paidLate: true, paid: m('120') },
      null,
    ],
    [
      'completed on time, paid over late, then the extra payment reorged away: back to no substatus',
      { current: 'COMPLETED', currentSubstatus: 'PAID_OVER', chainMove: true, paidLate: true, paid: m('100') },
      { status: 'COMPLETED', substatus: null },
    ],
    [
      'completed on time, paid over late, the on-time payment reversed then mined again: PAID_OVER again, not PAID_LATE',
      { current: 'COMPLETED', currentSubstatus: 'PAYMENT_REVERSED', chainMove: true, paidLate: true, paid: m('120'), paidOnTime: m('100') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
    [
      'completed late, reversed, then mined again: PAID_LATE again',
      { current: 'COMPLETED', currentSubstatus: 'PAYMENT_REVERSED', chainMove: true, paidLate: true, paid: m('100'), paidOnTime: m('40') },
      { status: 'COMPLETED', substatus: 'PAID_LATE' },
    ],
    [
      'an on-time payment confirmed after a late one: the on-time part covers it, so not PAID_LATE',
      { current: 'PARTIALLY_PAID', paidLate: true, paid: m('110'), paidOnTime: m('100') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
    [
      'paid again once completed: still COMPLETED, now PAID_OVER',
      { current: 'COMPLETED', currentSubstatus: null, paid: m('105') },
      { status: 'COMPLETED', substatus: 'PAID_OVER' },
    ],
  ] as Array<[string, Partial<Situation>, unknown]>)('%s', (_name, change, expected) => {
    expect(next({ ...base, ...change })).toEqual(expected);
  });

  it.each([
    ['nothing happened', {}],
    ['already waiting, another pending payment', { current: 'WAITING_FOR_CONFIRMATIONS', pendingKind: 'crypto' }],
    ['partially paid, more partial', { current: 'PARTIALLY_PAID', paid: m('50') }],
    ['completed stays completed', { current: 'COMPLETED', paid: m('0') }],
    ['voided stays voided', { current: 'VOIDED', paid: m('500') }],
    ['completed by the merchant: a reversal does not touch it', { current: 'COMPLETED', currentSubstatus: 'MARKED_PAID', chainMove: true }],
    ['completed and still covered after a reversal', { current: 'COMPLETED', currentSubstatus: null, chainMove: true, paid: m('100') }],
    ['completed, not covered, but no chain reversal (e.g. a tolerance changed)', { current: 'COMPLETED', currentSubstatus: null, paid: m('40') }],
    ['reversed, and a new payment does not cover it yet', { current: 'COMPLETED', currentSubstatus: 'PAYMENT_REVERSED', paid: m('40') }],
    [
      'completed, paid again by less than rounding allows',
      { current: 'COMPLETED', currentSubstatus: null, paid: m('100.000000000000001'), rounding: m('0.00000000000001') },
    ],
    ['completed by the merchant, then paid', { current: 'COMPLETED', currentSubstatus: 'MARKED_PAID', paid: m('30') }],
    ['completed late, then paid again', { current: 'COMPLETED', currentSubstatus: 'PAID_LATE', paid: m('200') }],
    ['completed over, then paid again', { current: 'COMPLETED', currentSubstatus: 'PAID_OVER', paid: m('300') }],
    ['voided, then paid over', { current: 'VOIDED', currentSubstatus: null, paid: m('300') }],
  ] as Array<[string, Partial<Situation>]>)('no change: %s', (_name, change) => {
    expect(next({ ...base, ...change })).toBeNull();
  });
});
