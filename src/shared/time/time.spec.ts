import { formatTimestamp, parseTimeBound } from './time';

describe('formatTimestamp', () => {
  it.each([
    ['2026-11-21T09:05:03.999Z', '2026-11-21 09:05:03'],
    ['2024-02-29T23:59:59.000Z', '2024-02-29 23:59:59'],
    ['2026-01-01T00:00:00+02:00', '2025-12-31 22:00:00'],
  ])('renders %s as UTC %s', (iso, expected) => {
    expect(formatTimestamp(new Date(iso))).toBe(expected);
  });

  it('gives what toISOString() gives, cut to seconds, for any instant', () => {
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let n = 0; n < 5000; n++) {
      const date = new Date(Date.UTC(1000, 0, 1) + (next() % 9000) * 365 * 86_400_000 + next() * 17);
      expect(formatTimestamp(date)).toBe(date.toISOString().slice(0, 19).replace('T', ' '));
    }
  });

  it('renders years outside 1000-9999 as toISOString() does, and refuses an invalid date', () => {
    expect(formatTimestamp(new Date(Date.UTC(999, 11, 31, 23, 59, 59)))).toBe('0999-12-31 23:59:59');
    expect(formatTimestamp(new Date(Date.UTC(10000, 0, 1)))).toBe('+010000-01-01 00:00');
    expect(() => formatTimestamp(new Date(NaN))).toThrow(RangeError);
  });

  it('passes null and undefined through as null', () => {
    expect(formatTimestamp(null)).toBeNull();
    expect(formatTimestamp(undefined)).toBeNull();
  });
});

describe('parseTimeBound', () => {
  it.each([
    ['2026-03-04 05:06:07', 'from', '2026-03-04T05:06:07.000Z'],
    ['2026-03-04 05:06:07', 'to', '2026-03-04T05:06:07.999Z'],
    ['2026-03-04', 'from', '2026-03-04T00:00:00.000Z'],
    ['2026-03-04', 'to', '2026-03-04T23:59:59.999Z'],
    ['2024-02-29', 'from', '2024-02-29T00:00:00.000Z'],
    ['2026-03-04T05:06:07Z', 'from', '2026-03-04T05:06:07.000Z'],
    ['2026-03-04T05:06:07.250Z', 'to', '2026-03-04T05:06:07.250Z'],
    ['2026-03-04T05:06:07+02:00', 'from', '2026-03-04T03:06:07.000Z'],
    ['2026-03-04T05:06-0130', 'from', '2026-03-04T06:36:00.000Z'],
  ] as const)('reads %s as the %s bound %s', (text, side, expected) => {
    expect(parseTimeBound(text, side)?.toISOString()).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2026-13-01',
    '2026-02-30',
    '2025-02-29',
    '2026-03-04 24:00:00',
    '2026-03-04 05:60:00',
    '2026-03-04 05:06',
    '2026-3-4',
    '2026-03-04T05:06:07',
    '1700000000',
    '2026-03-04 05:06:07Z',
    ' 2026-03-04',
  ])('rejects %p', (text) => {
    expect(parseTimeBound(text, 'from')).toBeNull();
    expect(parseTimeBound(text, 'to')).toBeNull();
  });
});
