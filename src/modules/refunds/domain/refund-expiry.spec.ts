import { claimExpiresAt, claimOpen, DEFAULT_CLAIM_MINUTES } from './refund-expiry';

describe('claim expiry', () => {
  const now = new Date('2026-11-27T10:00:00Z');

  it('defaults to seven days, else the minutes asked for', () => {
    expect(DEFAULT_CLAIM_MINUTES).toBe(10_080);
    expect(claimExpiresAt(now, undefined).toISOString()).toBe('2026-12-04T10:00:00.000Z');
    expect(claimExpiresAt(now, 5).toISOString()).toBe('2026-11-27T10:05:00.000Z');
  });

  it('is open until, not at, its time', () => {
    const at = claimExpiresAt(now, 5);
    expect(claimOpen(at, new Date(at.getTime() - 1))).toBe(true);
    expect(claimOpen(at, at)).toBe(false);
  });
});
