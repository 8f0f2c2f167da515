import { DomainError, ServiceUnavailableError } from '../../../shared/errors/domain-error';
import type { Currency } from '../../../shared/money/currency';

/**
 * Live pricing needs a rate that no source renewed within RATES_MAX_AGE_SECONDS: the request locks
 * in no price and stores nothing (503, code rates_unavailable); it may succeed once a source answers
 * again, so Retry-After says when the sources are asked next (at most one refresh period away).
 */
export class RatesUnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;
  readonly code = 'rates_unavailable';
  constructor(
    readonly stale: ReadonlyArray<{ currency: Currency; ageSeconds: number }>,
    maxAgeSeconds: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `No exchange rate recent enough for live pricing: ${stale
        .map((s) => (s.ageSeconds >= 0 ? `${s.currency} (${s.ageSeconds} s old)` : `${s.currency} (never taken)`))
        .join(', ')}; rates must be at most ${maxAgeSeconds} s old. Retry shortly`,
    );
  }
}

/**
 * An invoice's rate lock holds a rate that was already too old for live pricing when the lock was taken (a
 * way to pay enabled after the invoice was priced): no price in that currency is the agreed one, and
 * today's rate would not match what its payments are valued at within the lock. Refused until the lock ends
 * (Retry-After), after which today's guarded rate prices it.
 */
export class StaleLockedRateError extends RatesUnavailableError {
  constructor(stale: ReadonlyArray<{ currency: Currency; ageSeconds: number }>, maxAgeSeconds: number, retryAfterSeconds: number, lockEndsAt: Date) {
    super(stale, maxAgeSeconds, retryAfterSeconds);
    this.message =
      `The invoice's locked exchange rates hold no rate recent enough for ${stale.map((s) => s.currency).join(', ')} ` +
      `(it was ${stale.map((s) => (s.ageSeconds >= 0 ? `${s.ageSeconds} s old` : 'never taken')).join(', ')} when the invoice was priced; ` +
      `at most ${maxAgeSeconds} s). It can be priced at the current rate once the rate lock ends at ${lockEndsAt.toISOString()}`;
  }
}

/**
 * The rates a write was valued at went with their day of history (the retention job dropped it between the
 * write's choice of rates and its transaction): nothing was written. The write chooses its rates again and
 * runs again (payments, refunds); should that keep happening, 503 and the client retries.
 */
export class RatesSnapshotGoneError extends ServiceUnavailableError {
  constructor(readonly snapshotId: string) {
    super('The exchange rates this was valued at were removed from the rate history meanwhile; retry');
  }
}
