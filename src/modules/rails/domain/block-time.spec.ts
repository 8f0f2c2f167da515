import { BLOCK_TIME_TOLERANCE_MS, paymentTimeOf } from './block-time';

describe('paymentTimeOf', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

  it.each([
    ['a block in the past', -60_000, -60_000],
    ['a block at now', 0, 0],
    ['a block a few seconds ahead (drift)', 3_000, 3_000],
    ['a block at the tolerance', BLOCK_TIME_TOLERANCE_MS, BLOCK_TIME_TOLERANCE_MS],
    ['a block just past the tolerance', BLOCK_TIME_TOLERANCE_MS + 1, 0],
    ['a block ten minutes ahead', 600_000, 0],
  ])('%s', (_, blockOffset, expectedOffset) => {
    expect(paymentTimeOf(at(blockOffset), now)).toEqual(at(expectedOffset));
  });
});
