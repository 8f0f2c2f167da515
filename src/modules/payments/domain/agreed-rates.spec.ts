import { agreedRatesSnapshot } from './agreed-rates';

describe('agreedRatesSnapshot', () => {
  const invoice = { ratesSnapshotId: 'rates_a', ratesTakenAt: new Date('2026-11-30T11:59:00Z'), expiresAt: new Date('2026-11-30T12:15:00Z') };

  it("is the invoice's snapshot for a payment that happened while its rate lock held, to the millisecond of expires_at", () => {
    expect(agreedRatesSnapshot(invoice, new Date('2026-11-30T12:00:00Z'))).toBe('rates_a');
    expect(agreedRatesSnapshot(invoice, new Date('2026-11-30T12:15:00.000Z'))).toBe('rates_a');
    expect(agreedRatesSnapshot(invoice, new Date('2026-11-30T11:59:00.000Z'))).toBe('rates_a');
    expect(agreedRatesSnapshot({ ...invoice, ratesTakenAt: null }, new Date('2026-11-01T00:00:00Z'))).toBe('rates_a');
  });

  it('is none (the rates of the moment it happened) for a late payment, one before the rates were taken, and for an invoice that never expires or has no snapshot', () => {
    expect(agreedRatesSnapshot(invoice, new Date('2026-11-30T12:15:00.001Z'))).toBeNull();
    expect(agreedRatesSnapshot(invoice, new Date('2026-11-30T11:58:59.999Z'))).toBeNull();
    expect(agreedRatesSnapshot({ ...invoice, expiresAt: null }, new Date('2026-11-30T12:00:00Z'))).toBeNull();
    expect(agreedRatesSnapshot({ ...invoice, ratesSnapshotId: null }, new Date('2026-11-30T12:00:00Z'))).toBeNull();
  });
});
