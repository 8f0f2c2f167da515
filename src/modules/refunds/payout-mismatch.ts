import type { PayoutVerdict } from '../payouts';
import { PayoutMismatchError } from './domain/refund.errors';
import type { RefundRow } from './persistence/refunds.repository';

/** The refusal of a reported payout that does not pay the refund, in words that name only this refund's own payout. */
export function mismatchOf(
  verdict: Exclude<PayoutVerdict, 'paid'> | 'taken',
  row: Pick<RefundRow, 'address' | 'payout_units' | 'payout_currency'>,
): PayoutMismatchError {
  switch (verdict) {
    case 'failed':
      return new PayoutMismatchError('the transaction failed on the chain');
    case 'by_destination':
      return new PayoutMismatchError(
        `was sent by ${row.address} itself (its own transaction, a swap or a transfer to itself): send the payout from your wallet`,
      );
    case 'too_early':
      return new PayoutMismatchError('was mined before the destination was given (in its block or earlier): send the payout, then report it');
    case 'taken':
      return new PayoutMismatchError(`its transfers to ${row.address} already pay another refund`);
    case 'short':
      return new PayoutMismatchError(`does not pay ${row.address} at least ${row.payout_units} smallest units of ${row.payout_currency}`);
  }
}
