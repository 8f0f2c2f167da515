import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PayoutTransferSeen } from '../rails';
import { pickTransfers, type PayoutVerdict } from './domain/refund-expiry';
import { PayoutMismatchError } from './domain/refund.errors';
import { type RefundRow, RefundsRepository } from './persistence/refunds.repository';

/** The refusal of a reported payout that does not pay the refund, in words that name only this refund's own payout. */
export function mismatchOf(
  verdict: Exclude<PayoutVerdict, 'paid'> | 'taken',
  row: Pick<RefundRow, 'address' | 'payout_units' | 'payout_currency'>,
): PayoutMismatchError {
  switch (verdict) {
    case 'failed':
      return new PayoutMismatchError('the transaction failed on the chain');
    case 'too_early':
      return new PayoutMismatchError('was mined before the destination was given (in its block or earlier): send the payout, then report it');
    case 'taken':
      return new PayoutMismatchError(`its transfers to ${row.address} already pay another refund`);
    case 'short':
      return new PayoutMismatchError(`does not pay ${row.address} at least ${row.payout_units} smallest units of ${row.payout_currency}`);
  }
}

/** A unique violation: another refund took the same transfer in a transaction that committed first. */
export function transferRace(e: unknown): boolean {
  const code = (e as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (e as { code?: string }).code;
  return code === '23505';
}

/**
 * Each transfer pays at most one refund (decisions §19, "Once"): a refund takes the transfers that pay
 * it when they are shown to (a mined transaction that pays the destination enough after the claim),
 * never on a bare report, so a report that pays nothing holds nothing.
 */
@Injectable()
export class PayoutTransfers {
  constructor(@Inject(RefundsRepository) private readonly refunds: RefundsRepository) {}

  /**
   * In the caller's unit of work: the refund holds transfers of `txHash` worth its payout, or
   * PayoutMismatchError when the free ones fall short. A refund that holds some already keeps them.
   */
  async take(m: EntityManager, row: RefundRow, txHash: string, seen: readonly PayoutTransferSeen[], now: Date): Promise<void> {
    const held = await this.refunds.heldTransfers(m, row.network!, txHash);
    if (held.some((h) => h.refund_id === row.id)) return;
    const picked = pickTransfers(seen, new Set(held.map((h) => h.output)), row.payout_units!);
    if (!picked) throw mismatchOf('taken', row);
    await this.refunds.holdTransfers(m, row, txHash, picked, now);
  }
}
