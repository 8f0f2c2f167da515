import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { CheckPayoutQuery, ListPayoutRailsQuery } from '../../../rails';
import { txHashProblem } from '../../domain/payout-tx';
import { judgePayout } from '../../domain/refund-expiry';
import { PayoutMismatchError } from '../../domain/refund.errors';
import { moveRefund } from '../../domain/refund-status';
import { RefundView, refundView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents } from '../refund-events';
import { ReportRefundSentCommand } from './report-refund-sent.command';

@CommandHandler(ReportRefundSentCommand)
export class ReportRefundSentHandler implements ICommandHandler<ReportRefundSentCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, refundId, txHash }: ReportRefundSentCommand): Promise<RefundView> {
    const found = await this.refunds.find(this.tx.manager, scope, refundId);
    if (!found) throw new NotFoundError('refund');
    const hash = txHash.trim().toLowerCase();
    // The same report again (a retried request): the refund as it is.
    if ((found.status === 'SENT' || found.status === 'COMPLETED') && found.tx_hash === hash) return refundView(found);
    moveRefund(found.status, 'SENT');
    const rail = (await this.queries.execute(new ListPayoutRailsQuery(scope.mode))).find((r) => r.network === found.network);
    const problem = txHashProblem(rail?.family ?? null, hash);
    if (problem) throw new ValidationFailedError({ tx_hash: problem });
    if (await this.refunds.txTaken(this.tx.manager, scope.mode, found.network!, hash, found.id)) {
      throw new ValidationFailedError({ tx_hash: 'is already reported as the payout of another refund' });
    }
    // What the chain says now; a transaction it does not show yet is accepted and checked by the worker.
    const check = await this.queries.execute(new CheckPayoutQuery(scope.mode, found.network!, hash, found.address!, found.token_contract));
    let confirmations = 0;
    if (check.state === 'failed' || check.state === 'mined') {
      const verdict = judgePayout(check, found.payout_units!);
      if (verdict === 'failed') throw new PayoutMismatchError('the transaction failed on the chain');
      if (verdict === 'short')
        throw new PayoutMismatchError(`does not pay ${found.address} at least ${found.payout_units} smallest units of ${found.payout_currency}`);
      confirmations = check.confirmations;
    }
    try {
      return await this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, refundId, true);
        if (!before) throw new NotFoundError('refund');
        moveRefund(before.status, 'SENT');
        const after = await this.refunds.setSent(m, before.id, hash, confirmations, await this.clock.nowFor(scope, m));
        await this.events.changed(m, before, after);
        return refundView(after);
      });
    } catch (e) {
      // Another refund took the same transaction at the same moment (refunds_tx_idx).
      const code = (e as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (e as { code?: string }).code;
      if (code === '23505') throw new ValidationFailedError({ tx_hash: 'is already reported as the payout of another refund' });
      throw e;
    }
  }
}
