import { v7 as uuidv7 } from 'uuid';
import { boundAt, isExpired, rangeAt, rangeOfSuffix, rangesBetween, uuidv7Floor, uuidv7Time } from './partition-ranges';

const at = (iso: string) => new Date(iso);

describe('partition ranges', () => {
  it.each([
    ['day', '2026-11-29T23:59:59.999Z', '2026-11-29T00:00:00.000Z', '2026-11-30T00:00:00.000Z', 'p20261129'],
    ['day', '2026-12-31T00:00:00.000Z', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z', 'p20261231'],
    ['month', '2026-11-29T12:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 'p202611'],
    ['month', '2026-12-05T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', 'p202612'],
  ] as const)('%s holding %s is [%s, %s) named %s', (unit, when, from, to, suffix) => {
    const r = rangeAt(unit, at(when));
    expect([r.from.toISOString(), r.to.toISOString(), r.suffix]).toEqual([from, to, suffix]);
    expect(rangeOfSuffix(unit, suffix)).toEqual(r);
  });

  it.each([
    ['day', 'p202611'],
    ['day', 'p20261131'],
    ['month', 'p20261129'],
    ['month', 'p202613'],
    ['day', 'default'],
  ] as const)('%s refuses the suffix %s', (unit, suffix) => {
    expect(rangeOfSuffix(unit, suffix)).toBeNull();
  });

  it('lists the units between two instants, both ends included', () => {
    expect(rangesBetween('day', at('2026-11-28T10:00:00Z'), at('2026-12-01T00:00:00Z')).map((r) => r.suffix)).toEqual([
      'p20261128',
      'p20261129',
      'p20261130',
      'p20261201',
    ]);
    expect(rangesBetween('month', at('2026-11-28T10:00:00Z'), at('2027-01-01T00:00:00Z')).map((r) => r.suffix)).toEqual(['p202611', 'p202612', 'p202701']);
  });

  it('bounds UUIDv7 ids by their time: ids made before sort below, at or after sort at or above', () => {
    const t = at('2026-11-29T00:00:00.000Z');
    const floor = uuidv7Floor(t);
    const before = uuidv7({ msecs: t.getTime() - 1 });
    const atT = uuidv7({ msecs: t.getTime() });
    const after = uuidv7({ msecs: t.getTime() + 86_400_000 });
    expect(before < floor).toBe(true);
    expect(floor <= atT).toBe(true);
    expect(atT < after).toBe(true);
    expect(uuidv7Time(`rates_${atT}`)).toEqual(t);
    expect(uuidv7Time('rates_bundled_20261120')).toBeNull();
    expect(boundAt({ kind: 'id', prefix: 'rates_' }, t)).toBe(`rates_${floor}`);
    expect(boundAt({ kind: 'time' }, t)).toBe('2026-11-29T00:00:00.000Z');
  });

  it.each([
    [30, '2026-10-30T00:00:00.000Z', true],
    [30, '2026-10-30T00:00:00.001Z', false],
    [0, '2000-01-01T00:00:00.000Z', false],
  ])('with %s days of retention on 2026-11-29, a day ending %s expired: %s', (days, end, expired) => {
    const to = at(end);
    expect(isExpired({ from: new Date(to.getTime() - 86_400_000), to, suffix: 'x' }, at('2026-11-29T00:00:00.000Z'), days)).toBe(expired);
  });
});
