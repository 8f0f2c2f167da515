import { maxAttempts, nextRetryDelayMs, parseRetrySchedule } from './retry-schedule';

describe('retry schedule', () => {
  it('reads durations with units', () => {
    expect(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(parseRetrySchedule(' 250ms , 1d ')).toEqual([250, 86_400_000]);
  });

  it.each(['', '5', '5x', '5s,,5m', '-1s', '1.5s'])('refuses %p', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow();
  });

  it('the default schedule makes 8 attempts spread over about a day', () => {
    const schedule = parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h');
    expect(maxAttempts(schedule)).toBe(8);
    const total = schedule.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(36 * 3_600_000);
  });

  it.each([
    [1, 0, 900],
    [1, 0.5, 1000],
    [1, 0.999999, 1100],
    [2, 0.5, 60000],
  ])('after %i failed attempts with random %p waits %i ms', (attempts, random, expected) => {
    expect(nextRetryDelayMs([1000, 60000], attempts, random)).toBe(expected);
  });

  it('stays within +-10% of the schedule', () => {
    for (let i = 0; i < 100; i++) {
      const delay = nextRetryDelayMs([300000], 1, Math.random())!;
      expect(delay).toBeGreaterThanOrEqual(270000);
      expect(delay).toBeLessThanOrEqual(330000);
    }
  });

  it('has no retry once the schedule is used up', () => {
    expect(nextRetryDelayMs([1000, 2000], 3, 0.5)).toBeNull();
    expect(nextRetryDelayMs([], 1, 0.5)).toBeNull();
    expect(nextRetryDelayMs([1000], 0, 0.5)).toBeNull();
  });
});
