import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { moveRefund } from '../../domain/refund-status';
import { RefundView, refundView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents } from '../refund-events';
import { CancelRefundCommand } from './cancel-refund.command';

@CommandHandler(CancelRefundCommand)
export class CancelRefundHandler implements ICommandHandler<CancelRefundCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  execute({ scope, refundId }: CancelRefundCommand): Promise<RefundView> {
    return this.tx.run(async (m) => {
      const before = await this.refunds.find(m, scope, refundId, true);
      if (!before) throw new NotFoundError('refund');
      // Canceling a canceled refund answers it as it is (a retried request).
      if (before.status === 'CANCELED') return refundView(before);
      const after = await this.refunds.setStatus(m, before, moveRefund(before.status, 'CANCELED'), await this.clock.nowFor(scope, m));
      await this.events.changed(m, before, after);
      return refundView(after);
    });
  }
}
