import { claimExpiresAt, claimOpen, DEFAULT_CLAIM_MINUTES, judgePayout } from './refund-expiry';

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

describe('judgePayout', () => {
  it.each([
    [{ state: 'mined' as const, paidUnits: '6666666' }, '6666666', 'paid'],
    [{ state: 'mined' as const, paidUnits: '6666667' }, '6666666', 'paid'],
    [{ state: 'mined' as const, paidUnits: '6666665' }, '6666666', 'short'],
    [{ state: 'mined' as const, paidUnits: '0' }, '1', 'short'],
    // 18-decimal amounts beyond a JS number's exact range are compared exactly.
    [{ state: 'mined' as const, paidUnits: '33333333333333332' }, '33333333333333333', 'short'],
    [{ state: 'failed' as const }, '1', 'failed'],
  ])('%j against %s units is %s', (check, units, want) => {
    expect(judgePayout(check, units)).toBe(want);
  });
});
