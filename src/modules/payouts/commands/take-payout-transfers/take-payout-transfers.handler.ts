import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PayoutTransfers, transferRace } from '../../payout-transfers';
import { PayoutTransfersTakenError, TakePayoutTransfersCommand } from './take-payout-transfers.command';

@CommandHandler(TakePayoutTransfersCommand)
export class TakePayoutTransfersHandler implements ICommandHandler<TakePayoutTransfersCommand> {
  constructor(@Inject(PayoutTransfers) private readonly transfers: PayoutTransfers) {}

  async execute({ unitOfWork, payout, units, txHash, transfers, now }: TakePayoutTransfersCommand): Promise<void> {
    let taken: boolean;
    try {
      taken = await this.transfers.take(unitOfWork, payout, units, txHash, transfers, now);
    } catch (e) {
      // Another payout took the same transfers in a transaction that committed first.
      if (transferRace(e)) throw new PayoutTransfersTakenError();
      throw e;
    }
    if (!taken) throw new PayoutTransfersTakenError();
  }
}
