import { Command } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';

/** In the caller's unit of work: the payout holds no transfer any more (its reported transaction was taken back). */
export class ReleasePayoutTransfersCommand extends Command<void> {
  constructor(
    readonly unitOfWork: EntityManager,
    readonly payoutId: string,
  ) {
    super();
  }
}
