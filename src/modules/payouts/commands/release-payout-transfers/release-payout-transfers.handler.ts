import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PayoutTransfers } from '../../payout-transfers';
import { ReleasePayoutTransfersCommand } from './release-payout-transfers.command';

@CommandHandler(ReleasePayoutTransfersCommand)
export class ReleasePayoutTransfersHandler implements ICommandHandler<ReleasePayoutTransfersCommand> {
  constructor(@Inject(PayoutTransfers) private readonly transfers: PayoutTransfers) {}

  execute({ unitOfWork, payoutId }: ReleasePayoutTransfersCommand): Promise<void> {
    return this.transfers.release(unitOfWork, payoutId);
  }
}
