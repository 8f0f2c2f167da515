import { INVOICE_STATUSES, InvoiceStatus, InvoiceSubstatus } from './invoice-status';
import {
  expiresAtFor,
  heldRatesSnapshot,
  rateLock,
  isLatePayment,
  isPastExpiry,
  monitoringEndsAt,
  paymentWindowEndsAt,
  reorgHold,
  settlingWindowEndsAt,
  timeMove,
  timeMoveEvents,
  TimedInvoice,
  voidedIfExpiredBy,
  withTimeApplied,
} from './invoice-timing';

const created = new Date('2026-11-21T10:00:00Z');
const expiresAt = expiresAtFor(created, 15);
const WINDOW = 1440;
const at = (minutesAfterCreation: number) => new Date(created.getTime() + minutesAfterCreation * 60_000);
const inv = (status: InvoiceStatus, substatus: InvoiceSubstatus | null = null, exp: Date | null = expiresAt): TimedInvoice => ({
  status,
  substatus,
  expiresAt: exp,
});

describe('invoice clocks', () => {
  it('computes expiry and the end of the monitoring window', () => {
    expect(expiresAt.toISOString()).toBe('2026-11-21T10:15:00.000Z');
    expect(monitoringEndsAt(expiresAt, WINDOW)!.toISOString()).toBe('2026-11-22T10:15:00.000Z');
    expect(monitoringEndsAt(null, WINDOW)).toBeNull();
  });

  it('the cutoff for lists agrees with the clock: expired at or before it is VOIDED as of now', () => {
    const now = at(15 + WINDOW + 7);
    const cutoff = voidedIfExpiredBy(now, WINDOW);
    expect(cutoff.toISOString()).toBe('2026-11-21T10:22:00.000Z');
    expect(timeMove(inv('PENDING', null, cutoff), now, WINDOW)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
    expect(timeMove(inv('PENDING', null, new Date(cutoff.getTime() + 1)), now, WINDOW)).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
  });

  it("a reorg's hold keeps an expired invoice PENDING past its window until the hold ends, then voids it", () => {
    const closes = monitoringEndsAt(expiresAt, WINDOW)!;
    const heldUntil = new Date(closes.getTime() + 90 * 60_000);
    const held: TimedInvoice = { ...inv('PENDING', 'EXPIRED'), clockHeldUntil: heldUntil };
    expect(paymentWindowEndsAt(held, WINDOW)).toEqual(heldUntil);
    expect(timeMove(held, new Date(closes.getTime() + 60_000), WINDOW)).toBeNull();
    expect(timeMove({ ...held, substatus: null }, new Date(closes.getTime() + 60_000), WINDOW)).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
    expect(timeMove(held, heldUntil, WINDOW)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
    // A hold ending before the window does not shorten it.
    const early: TimedInvoice = { ...inv('PENDING', 'EXPIRED'), clockHeldUntil: at(20) };
    expect(paymentWindowEndsAt(early, WINDOW)).toEqual(closes);
    expect(timeMove(early, at(30), WINDOW)).toBeNull();
  });

  it('a fall-back from a reorg holds the window for another monitoring window from then, only when that is later', () => {
    // Before expiry the invoice's own window lasts longer: nothing to hold.
    expect(reorgHold(inv('PENDING'), at(10), WINDOW)).toBeNull();
    // Two minutes before the window closes: held for a whole window from then.
    const late = at(15 + WINDOW - 2);
    expect(reorgHold(inv('PENDING'), late, WINDOW)).toEqual(new Date(late.getTime() + WINDOW * 60_000));
    // Past the window, never later than one more window after it, however often it comes.
    const closes = monitoringEndsAt(expiresAt, WINDOW)!;
    const capped = new Date(closes.getTime() + WINDOW * 60_000);
    expect(reorgHold(inv('PENDING'), at(15 + WINDOW + 100), WINDOW)).toEqual(capped);
    expect(reorgHold({ ...inv('PENDING'), clockHeldUntil: new Date(capped.getTime() - 60_000) }, at(15 + 2 * WINDOW - 1), WINDOW)).toEqual(capped);
    expect(reorgHold({ ...inv('PENDING'), clockHeldUntil: capped }, at(15 + 2 * WINDOW + 5), WINDOW)).toBeNull();
    // An existing later hold stays.
    const far = new Date(late.getTime() + 2 * WINDOW * 60_000);
    expect(reorgHold({ ...inv('PENDING'), clockHeldUntil: far }, late, WINDOW)).toBeNull();
    expect(reorgHold(inv('PENDING', null, null), late, WINDOW)).toBeNull();
  });

  it('gives an invoice whose payment is still settling one more window before a follower counts it past its window', () => {
    const closes = monitoringEndsAt(expiresAt, WINDOW)!;
    expect(settlingWindowEndsAt(inv('PENDING', 'EXPIRED'), WINDOW)).toEqual(closes);
    expect(settlingWindowEndsAt(inv('PARTIALLY_PAID', 'PAID_PARTIAL'), WINDOW)).toEqual(closes);
    for (const status of ['WAITING_FOR_CONFIRMATIONS', 'PROCESSING'] as const) {
      expect(settlingWindowEndsAt(inv(status), WINDOW)).toEqual(new Date(closes.getTime() + WINDOW * 60_000));
    }
    expect(settlingWindowEndsAt(inv('PROCESSING', null, null), WINDOW)).toBeNull();
  });

  it('expiry starts at expires_at exactly', () => {
    expect(isPastExpiry(expiresAt, at(14.99))).toBe(false);
    expect(isPastExpiry(expiresAt, at(15))).toBe(true);
    expect(isPastExpiry(null, at(100000))).toBe(false);
  });

  it('a payment is late only when it happened after expires_at', () => {
    expect(isLatePayment(at(15), expiresAt)).toBe(false);
    expect(isLatePayment(at(15.01), expiresAt)).toBe(true);
    expect(isLatePayment(at(99999), null)).toBe(false);
  });

  it('leaves a PENDING invoice alone before expiry', () => {
    expect(timeMove(inv('PENDING'), at(14), WINDOW)).toBeNull();
  });

  it('PENDING -> PENDING/EXPIRED at expiry (by the clock)', () => {
    expect(timeMove(inv('PENDING'), at(15), WINDOW)).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
    expect(timeMove(inv('PENDING'), at(15 + WINDOW - 1), WINDOW)).toEqual({ status: 'PENDING', substatus: 'EXPIRED' });
  });

  it('an already expired invoice does not move again inside the window', () => {
    expect(timeMove(inv('PENDING', 'EXPIRED'), at(20), WINDOW)).toBeNull();
  });

  it('PENDING -> VOIDED/EXPIRED when the monitoring window closes (from expired or, with a late sweeper, directly)', () => {
    expect(timeMove(inv('PENDING', 'EXPIRED'), at(15 + WINDOW), WINDOW)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
    expect(timeMove(inv('PENDING'), at(15 + WINDOW + 500), WINDOW)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
  });

  it('a zero-minute window voids at expiry', () => {
    expect(timeMove(inv('PENDING'), at(15), 0)).toEqual({ status: 'VOIDED', substatus: 'EXPIRED' });
  });

  it.each(INVOICE_STATUSES.filter((s) => s !== 'PENDING'))('never moves a %s invoice', (status) => {
    expect(timeMove(inv(status), at(15), WINDOW)).toBeNull();
    expect(timeMove(inv(status), at(15 + WINDOW * 2), WINDOW)).toBeNull();
  });

  it('never moves an invoice without expires_at', () => {
    expect(timeMove(inv('PENDING', null, null), at(10 ** 7), WINDOW)).toBeNull();
  });

  it('withTimeApplied returns the state as of now and keeps other fields', () => {
    const stored = { ...inv('PENDING'), id: 'invoice_1' };
    expect(withTimeApplied(stored, at(1), WINDOW)).toBe(stored);
    expect(withTimeApplied(stored, at(16), WINDOW)).toEqual({ ...stored, substatus: 'EXPIRED' });
    expect(withTimeApplied(stored, at(15 + WINDOW), WINDOW)).toEqual({ ...stored, status: 'VOIDED', substatus: 'EXPIRED' });
  });

  it('names the events of a clock move', () => {
    expect(timeMoveEvents(inv('PENDING'), { status: 'PENDING', substatus: 'EXPIRED' })).toEqual(['invoice.expired', 'invoice.updated']);
    expect(timeMoveEvents(inv('PENDING', 'EXPIRED'), { status: 'VOIDED', substatus: 'EXPIRED' })).toEqual(['invoice.updated']);
    expect(timeMoveEvents(inv('PENDING'), { status: 'VOIDED', substatus: 'EXPIRED' })).toEqual(['invoice.expired', 'invoice.updated']);
  });

  it.each([
    ['before expires_at', 'snap_1', 14.99, 'snap_1'],
    // A payment at that instant is on time and valued at the invoice's rates: an address asked then is priced at them too.
    ['at expires_at', 'snap_1', 15, 'snap_1'],
    ['just after expires_at', 'snap_1', 15.001, null],
    ['after expires_at', 'snap_1', 20, null],
    ['without a snapshot', null, 1, null],
  ])("holds the invoice's rates %s only up to its expiry", (_when, snapshot, minutes, held) => {
    expect(heldRatesSnapshot({ ratesSnapshotId: snapshot, expiresAt }, at(minutes))).toBe(held);
  });

  it('holds no rates for an invoice that never expires', () => {
    expect(heldRatesSnapshot({ ratesSnapshotId: 'snap_1', expiresAt: null }, at(1))).toBeNull();
  });
});

describe('rateLock', () => {
  const created = new Date('2026-11-28T10:00:00Z');
  const until = new Date('2026-11-28T11:00:00Z');
  it('starts at the creation when the snapshot is older (an invoice priced once)', () => {
    expect(rateLock({ createdAt: created, ratesTakenAt: new Date('2026-11-28T09:59:00Z') }, until)).toEqual({ from: created, until });
    expect(rateLock({ createdAt: created, ratesTakenAt: null }, until)).toEqual({ from: created, until });
  });
  it("starts at the snapshot's time when it is later (re-priced by a currency change)", () => {
    const later = new Date('2026-11-28T10:30:00Z');
    expect(rateLock({ createdAt: created, ratesTakenAt: later }, until)).toEqual({ from: later, until });
  });
});
