/** Retry timing of webhook deliveries: pure functions of the configured schedule. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Reads `5s,5m,30m,2h` into milliseconds; throws on anything else. */
export function parseRetrySchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)(ms|s|m|h|d)\s*$/.exec(part);
    if (!m) throw new Error(`invalid duration "${part.trim()}" (use a number and ms, s, m, h or d)`);
    return Number(m[1]) * UNIT_MS[m[2]];
  });
}

/** One first attempt plus one retry per schedule entry. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

export const JITTER = 0.1;

/**
 * Wait before the next attempt after `attemptsMade` failed attempts, or null when none is left.
 * The schedule's entry varies by +-10% (`random` in [0, 1)) so retries of many deliveries spread out.
 */
export function nextRetryDelayMs(schedule: readonly number[], attemptsMade: number, random: number): number | null {
  if (attemptsMade < 1 || attemptsMade > schedule.length) return null;
  const base = schedule[attemptsMade - 1];
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
}
