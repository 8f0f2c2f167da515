import { bucketLabel, isPeriod, PERIODS, windowOf } from './period';

const NOW = new Date('2026-11-21T12:07:26.500Z');

describe('dashboard windows', () => {
  it.each([
    ['last_day', 'hour', '2026-11-20T13:00:00.000Z', '2026-11-21T13:00:00.000Z', 24],
    ['prev_last_day', 'hour', '2026-11-19T13:00:00.000Z', '2026-11-20T13:00:00.000Z', 24],
    ['last_7_days', 'day', '2026-11-15T00:00:00.000Z', '2026-11-22T00:00:00.000Z', 7],
    ['prev_last_7_days', 'day', '2026-11-08T00:00:00.000Z', '2026-11-15T00:00:00.000Z', 7],
    ['last_30_days', 'day', '2026-10-23T00:00:00.000Z', '2026-11-22T00:00:00.000Z', 30],
    ['prev_last_30_days', 'day', '2026-09-23T00:00:00.000Z', '2026-10-23T00:00:00.000Z', 30],
    ['last_90_days', 'day', '2026-08-24T00:00:00.000Z', '2026-11-22T00:00:00.000Z', 90],
    ['prev_last_90_days', 'day', '2026-05-26T00:00:00.000Z', '2026-08-24T00:00:00.000Z', 90],
    ['last_365_days', 'day', '2025-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z', 365],
    ['prev_last_365_days', 'day', '2024-11-22T00:00:00.000Z', '2025-11-22T00:00:00.000Z', 365],
  ] as const)('%s is %s buckets from %s to %s (%d points)', (period, grain, from, to, points) => {
    const w = windowOf(period, NOW);
    expect(w.grain).toBe(grain);
    expect(w.from.toISOString()).toBe(from);
    expect(w.to.toISOString()).toBe(to);
    expect(w.buckets).toHaveLength(points);
    expect(w.buckets[0].toISOString()).toBe(from);
    expect(w.buckets[points - 1].getTime() + (grain === 'hour' ? 3_600_000 : 86_400_000)).toBe(w.to.getTime());
  });

  it('a prev_ window ends where its current window starts', () => {
    for (const p of PERIODS.filter((x) => !x.startsWith('prev_'))) {
      expect(windowOf(`prev_${p}` as never, NOW).to.getTime()).toBe(windowOf(p, NOW).from.getTime());
    }
  });

  it('holds now, at the very start and end of a bucket too', () => {
    for (const now of [new Date('2026-11-21T00:00:00.000Z'), new Date('2026-11-21T23:59:59.999Z')]) {
      for (const p of ['last_day', 'last_7_days'] as const) {
        const w = windowOf(p, now);
        expect(w.from.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(w.to.getTime()).toBeGreaterThan(now.getTime());
      }
    }
  });

  it('labels days and hours', () => {
    expect(bucketLabel(new Date('2026-11-21T00:00:00Z'), 'day')).toBe('2026-11-21');
    expect(bucketLabel(new Date('2026-11-21T07:00:00Z'), 'hour')).toBe('2026-11-21 07:00:00');
  });

  it.each([
    ['last_day', true],
    ['prev_last_365_days', true],
    ['last_2_days', false],
    ['', false],
    [7, false],
    [null, false],
  ])('isPeriod(%p) = %p', (v, ok) => {
    expect(isPeriod(v)).toBe(ok);
  });
});
