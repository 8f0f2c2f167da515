import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ForgetReleasedPayoutCommand } from '../../../payouts';
import { RefundsRepository } from '../../persistence/refunds.repository';

/** Answers the payout worker's ForgetReleasedPayoutCommand (payouts' port): the refund's released payout is no longer watched. */
@CommandHandler(ForgetReleasedPayoutCommand)
export class ForgetReleasedPayoutHandler implements ICommandHandler<ForgetReleasedPayoutCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
  ) {}

  execute({ scope, id }: ForgetReleasedPayoutCommand): Promise<void> {
    return this.refunds.forgetReleased(this.tx.manager, { id, organization_id: scope.organizationId, mode: scope.mode });
  }
}
