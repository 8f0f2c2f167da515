/**
 * The rates a new payment is valued at in USD. While the invoice's rate lock holds (the payment happened
 * from when its rates were taken, `rates_taken_at`, to `expires_at`), the invoice's own snapshot: the rates
 * its price was fixed at and the amount to send through each provider was quoted at, so a payer who sends
 * exactly what was asked covers it whatever the rates did since. A late payment (after `expires_at`), one
 * reported as having happened before those rates were taken, and one of an invoice that never expires or
 * records no snapshot, is valued at the rates in force when it happened. Null: those rates.
 */
export function agreedRatesSnapshot(
  invoice: { ratesSnapshotId: string | null; ratesTakenAt: Date | null; expiresAt: Date | null },
  happenedAt: Date,
): string | null {
  if (invoice.ratesSnapshotId === null || invoice.expiresAt === null) return null;
  if (invoice.ratesTakenAt !== null && happenedAt.getTime() < invoice.ratesTakenAt.getTime()) return null;
  return happenedAt.getTime() <= invoice.expiresAt.getTime() ? invoice.ratesSnapshotId : null;
}

/**
 * Thrown inside a payment's transaction when the invoice, read under its lock, says the payment is valued at
 * other rates than those it was priced at before (its rate lock's snapshot): nothing is written, and the
 * payment is valued again at `snapshotId` and recorded.
 */
export class ValueAtAgreedRates extends Error {
  constructor(readonly snapshotId: string) {
    super(`the payment is valued at the invoice's rates (${snapshotId})`);
  }
}
