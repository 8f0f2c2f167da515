import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { SimulateClaimPayoutCommand, SimulatedClaimPayout } from '../../../payouts';
import { claimView } from '../../dto/refund.views';
import { SimulatedPayout, simulatedMessage, SimulateRefundPayoutCommand } from './simulate-refund-payout.command';

/** Answers payouts' claim page test control (SimulateClaimPayoutCommand): the same move as the merchant's test helper, by claim token. */
@CommandHandler(SimulateClaimPayoutCommand)
export class SimulateClaimPayoutHandler implements ICommandHandler<SimulateClaimPayoutCommand> {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  async execute({ token, result }: SimulateClaimPayoutCommand): Promise<SimulatedClaimPayout> {
    const done: SimulatedPayout = await this.commands.execute(new SimulateRefundPayoutCommand({ token }, result));
    return { claim: claimView(done.row, []), message: simulatedMessage(done) };
  }
}
