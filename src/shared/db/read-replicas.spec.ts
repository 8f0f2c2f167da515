import { type KnownPosition, parseLsn, PRIMARY_NOW, type PrimarySample, replicaUsable, requiredPosition, stillBehind } from './read-replicas';

describe('parseLsn', () => {
  it('reads pg_lsn text as the byte position, high word first', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it('orders positions as PostgreSQL does, across the word boundary', () => {
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('A/1') > parseLsn('9/FFFFFFFF')).toBe(true);
  });

  it('reads no position as 0', () => {
    expect(parseLsn(null)).toBe(0n);
    expect(parseLsn('')).toBe(0n);
  });
});

describe('stillBehind (how long a replica lags)', () => {
  const lagAt = (behind: PrimarySample[], now: number) => (behind.length ? now - behind[0].at : 0);

  it('reads a replica steadily 8 s behind as 8 s behind at every check, not caught up each time it reaches an older position', () => {
    // The primary writes 100 bytes a second, checked each second; the replica replays what the primary had 8 s
    // before. Its lag reads as 7 s at every check from then on: the oldest check it has not replayed was 7 s
    // ago (checks resolve the lag to one interval), and it never drops back to 0.
    let behind: PrimarySample[] = [];
    for (let t = 0; t <= 30; t++) {
      behind = stillBehind(behind, { lsn: BigInt(100 * t + 100), at: t * 1000 }, BigInt(Math.max(0, 100 * (t - 8) + 100)));
      if (t >= 8) expect(lagAt(behind, t * 1000)).toBe(7000);
    }
  });

  it('forgets the lag once the replica has replayed the position of the last check', () => {
    const behind = stillBehind([], { lsn: 500n, at: 0 }, 100n);
    expect(lagAt(behind, 3000)).toBe(3000);
    expect(stillBehind(behind, { lsn: 500n, at: 3000 }, 500n)).toEqual([]);
  });

  it('keeps the first sample it has not replayed when the primary stands still, and the oldest one when it thins', () => {
    let behind = stillBehind([], { lsn: 500n, at: 0 }, 100n);
    behind = stillBehind(behind, { lsn: 500n, at: 1000 }, 200n);
    expect(behind).toEqual([{ lsn: 500n, at: 0 }]);
    for (let t = 1; t < 2000; t++) behind = stillBehind(behind, { lsn: BigInt(500 + t), at: t * 1000 }, 200n);
    expect(behind.length).toBeLessThanOrEqual(512);
    expect(behind[0]).toEqual({ lsn: 500n, at: 0 });
    expect(behind[behind.length - 1].lsn).toBeGreaterThan(2000n);
  });
});

describe('requiredPosition (what a read of an organization must see)', () => {
  const known = (overrides: Partial<KnownPosition> = {}): KnownPosition => ({ own: 0n, unknownUntil: 0, shared: { lsn: 0n, unknown: false }, ...overrides });

  it("is the larger of the shared position and this process's own", () => {
    expect(requiredPosition(known({ own: 500n, shared: { lsn: 300n, unknown: false } }), 0)).toBe(500n);
    expect(requiredPosition(known({ own: 300n, shared: { lsn: 500n, unknown: false } }), 0)).toBe(500n);
    expect(requiredPosition(known(), 0)).toBe(0n);
  });

  it("takes the primary's position now while the position of one of the organization's writes could not be read here, and the known positions after", () => {
    // The write was acknowledged without a position: the records it would have raised still read 300.
    const unread = known({ own: 300n, unknownUntil: 10_000, shared: { lsn: 300n, unknown: false } });
    expect(requiredPosition(unread, 0)).toBe(PRIMARY_NOW);
    expect(requiredPosition(unread, 9_999)).toBe(PRIMARY_NOW);
    expect(requiredPosition(unread, 10_000)).toBe(300n);
  });

  it('takes it on every instance that finds the write held unknown in Redis, and when Redis cannot be asked', () => {
    expect(requiredPosition(known({ own: 300n, shared: { lsn: 300n, unknown: true } }), 0)).toBe(PRIMARY_NOW);
    expect(requiredPosition(known({ own: 300n, shared: null }), 0)).toBe(PRIMARY_NOW);
  });
});

describe('replicaUsable (whether reads may go to a replica)', () => {
  const limits = { maxLagMs: 5_000, trustMs: 7_000 };
  const now = 1_000_000;
  it('takes a replica that answers, within the lag limit, checked against the primary recently', () => {
    expect(replicaUsable({ up: true, behind: [] }, now, now - 1_000, limits)).toBe(true);
    expect(replicaUsable({ up: true, behind: [{ lsn: 10n, at: now - 4_000 }] }, now, now - 1_000, limits)).toBe(true);
    expect(replicaUsable({ up: true, behind: [{ lsn: 10n, at: now - 6_000 }] }, now, now - 1_000, limits)).toBe(false);
    expect(replicaUsable({ up: false, behind: [] }, now, now - 1_000, limits)).toBe(false);
  });
  it("refuses every replica once the primary's position has not been read for longer than the trust window", () => {
    // Caught up at the last check that could read the primary, 8 s ago: its lag since cannot be told.
    expect(replicaUsable({ up: true, behind: [] }, now, now - 8_000, limits)).toBe(false);
    expect(replicaUsable({ up: true, behind: [] }, now, 0, limits)).toBe(false);
  });
});
