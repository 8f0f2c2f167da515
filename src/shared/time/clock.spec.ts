import { OffsetClock, SystemClock } from './clock';

describe('OffsetClock', () => {
  it('starts at real time and moves forward by whole milliseconds', () => {
    const clock = new OffsetClock();
    const real = new SystemClock();
    expect(Math.abs(clock.now().getTime() - real.now().getTime())).toBeLessThan(1000);
    expect(clock.offsetMs).toBe(0);
    const moved = clock.advance(15 * 60_000);
    expect(clock.offsetMs).toBe(15 * 60_000);
    expect(moved.getTime() - real.now().getTime()).toBeGreaterThan(15 * 60_000 - 1000);
    clock.advance(1000);
    expect(clock.offsetMs).toBe(15 * 60_000 + 1000);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses to move by %p', (ms) => {
    const clock = new OffsetClock();
    expect(() => clock.advance(ms)).toThrow(RangeError);
    expect(clock.offsetMs).toBe(0);
  });
});
