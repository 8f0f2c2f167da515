/** The service's sense of "now". Domain code takes it as an argument instead of calling new Date(). */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/**
 * Real time plus an offset that only moves forward, kept in this process's memory. Installed
 * instead of SystemClock when CLOCK_CONTROL=true (refused in production), so tests can move the
 * service's time (POST /test_helpers/clock) instead of sleeping.
 */
export class OffsetClock extends Clock {
  private offset = 0;

  now(): Date {
    return new Date(Date.now() + this.offset);
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Moves this clock forward by `ms` (>= 0) and returns the new now. */
  advance(ms: number): Date {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('the clock only moves forward by a whole number of milliseconds');
    this.offset += ms;
    return this.now();
  }
}
