import { Command } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { PayoutTransferSeen } from '../../../rails';
import type { PayoutHolder } from '../../persistence/payout-transfers.repository';

/**
 * In the caller's unit of work, the payout (a refund's today) takes the transfers of `txHash` that pay
 * it, worth its `units` (decisions §19, "Once": a transfer pays one payout anywhere). A payout that holds
 * some already keeps them. PayoutTransfersTakenError when the free transfers fall short, or another
 * payout took the same ones in a transaction that committed first (the caller's transaction is then
 * lost with it).
 */
export class TakePayoutTransfersCommand extends Command<void> {
  constructor(
    readonly unitOfWork: EntityManager,
    readonly payout: PayoutHolder,
    readonly units: string,
    readonly txHash: string,
    readonly transfers: readonly PayoutTransferSeen[],
    readonly now: Date,
  ) {
    super();
  }
}

/** The transfers that would pay the payout pay another one already: the report pays nothing. */
export class PayoutTransfersTakenError extends Error {
  constructor() {
    super('the transfers pay another payout already');
    this.name = 'PayoutTransfersTakenError';
  }
}
