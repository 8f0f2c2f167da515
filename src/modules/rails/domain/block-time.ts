/**
 * How far ahead of the service's clock a block's timestamp may be and still be the payment's time.
 * Block times drift from wall clocks (a validator's clock, a chain's rule that each block is later
 * than its parent), and the payments module accepts a provider's time up to five minutes ahead.
 */
export const BLOCK_TIME_TOLERANCE_MS = 5 * 60 * 1000;

/**
 * When a transfer's payment happened: its block's time, or `now` when the block is stamped further
 * ahead of the service's clock than the tolerance. The money is there either way; a time in the
 * future would have the payment refused.
 */
export function paymentTimeOf(blockTime: Date, now: Date): Date {
  return blockTime.getTime() > now.getTime() + BLOCK_TIME_TOLERANCE_MS ? now : blockTime;
}
