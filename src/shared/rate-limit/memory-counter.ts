/**
 * Fixed-window counts in this process's memory: the counter without REDIS_URL, and the fallback while
 * Redis does not answer (rate-limiter.ts). Pure: the clock is given, so it is tested without waiting.
 */
export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/** Counts hits per bucket in fixed windows; shared across instances when it lives in Redis. */
export interface RateCounter {
  hit(bucket: string, windowMs: number): Promise<WindowCount>;
  /**
   * One hit in each of two buckets (a key's and its organization's), in one round trip where the counts live
   * elsewhere; the second only while the first is within `firstLimit` (else the second is only looked at).
   */
  hitPair(first: string, second: string, windowMs: number, firstLimit: number): Promise<[WindowCount, WindowCount]>;
  /** Takes back one hit of the current window (never below zero): an attempt counted up front that turned out not to count. */
  unhit(bucket: string, windowMs: number): Promise<WindowCount>;
  peek(bucket: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

/** Past this many buckets the memory counter drops the windows that have ended, at most once a second. */
const SWEEP_ABOVE = 50_000;
const SWEEP_EVERY_MS = 1000;

export class MemoryCounter implements RateCounter {
  private readonly windows = new Map<string, { start: number; end: number; count: number }>();
  private sweptAt = 0;
  /** How many sweeps ran (for tests and the curious: each one walks every bucket). */
  sweeps = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.windows.size;
  }

  window(bucket: string, windowMs: number, add: number): WindowCount {
    const now = this.now();
    const start = now - (now % windowMs);
    const key = `${bucket}:${windowMs}`;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, end: start + windowMs, count: 0 };
      this.windows.set(key, w);
      // Many clients at once (every /64 of an IPv6 /48 is a bucket) must not make each new window walk them all.
      if (this.windows.size > SWEEP_ABOVE && now - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(now);
    }
    w.count = Math.max(0, w.count + add);
    return { count: w.count, resetMs: w.end - now };
  }

  /** Drops every window that has ended: it counts nothing any more. */
  private sweep(now: number) {
    this.sweptAt = now;
    this.sweeps += 1;
    for (const [key, w] of this.windows) if (w.end <= now) this.windows.delete(key);
  }

  hit(bucket: string, windowMs: number) {
    return Promise.resolve(this.window(bucket, windowMs, 1));
  }
  unhit(bucket: string, windowMs: number) {
    return Promise.resolve(this.window(bucket, windowMs, -1));
  }
  hitPair(first: string, second: string, windowMs: number, firstLimit: number): Promise<[WindowCount, WindowCount]> {
    const own = this.window(first, windowMs, 1);
    return Promise.resolve([own, this.window(second, windowMs, own.count > firstLimit ? 0 : 1)]);
  }
  peek(bucket: string, windowMs: number) {
    return Promise.resolve(this.window(bucket, windowMs, 0));
  }
  async close() {}
}
