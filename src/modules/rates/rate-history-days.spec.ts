import { v7 as uuidv7 } from 'uuid';
import { goesSoon } from './rate-history-days';

const DAY_MS = 86_400_000;
const now = new Date('2026-11-30T12:00:00Z');
/** A snapshot id written at `at`, as the service makes them. */
const writtenAt = (at: Date) => `rates_${uuidv7({ msecs: at.getTime() })}`;

describe('which snapshots a write keeps itself (goesSoon)', () => {
  it('those whose day is dropped within a day: past retention already, or its last day', () => {
    // Retention 30: the day of 2026-10-30 ends 10-31 00:00, dropped from 11-30 00:00 on.
    expect(goesSoon(writtenAt(new Date('2026-10-30T23:59:59Z')), now, 30)).toBe(true);
    expect(goesSoon(writtenAt(new Date('2026-10-01T00:00:00Z')), now, 30)).toBe(true);
    // Its day ends 11-01 00:00: dropped from 12-01 00:00, within a day of now.
    expect(goesSoon(writtenAt(new Date('2026-10-31T08:00:00Z')), now, 30)).toBe(true);
  });

  it("not those of the days after, today's (the rates in force) among them", () => {
    expect(goesSoon(writtenAt(new Date('2026-11-01T00:00:00Z')), now, 30)).toBe(false);
    expect(goesSoon(writtenAt(new Date(now.getTime() - 60_000)), now, 30)).toBe(false);
    expect(goesSoon(writtenAt(new Date(now.getTime() - 20 * DAY_MS)), now, 30)).toBe(false);
  });

  it('never with the history kept whole (0), nor for ids that carry no time (the bundled snapshot)', () => {
    expect(goesSoon(writtenAt(new Date('2020-01-01T00:00:00Z')), now, 0)).toBe(false);
    expect(goesSoon('rates_bundled_20261120', now, 30)).toBe(false);
    expect(goesSoon(`payment_${uuidv7({ msecs: now.getTime() - 90 * DAY_MS })}`, now, 30)).toBe(false);
  });
});
