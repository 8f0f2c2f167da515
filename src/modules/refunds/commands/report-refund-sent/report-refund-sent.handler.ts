import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import {
  CheckPayoutTransactionIdQuery,
  PayoutTransfersTakenError,
  TakePayoutTransfersCommand,
  type PayoutTransferSeen,
  VerifyPayoutQuery,
} from '../../../payouts';
import { TxNotFoundError } from '../../domain/refund.errors';
import { moveRefund } from '../../domain/refund-status';
import { RefundView, refundView } from '../../dto/refund.views';
import { RefundsRepository, type SentReport } from '../../persistence/refunds.repository';
import { payoutHolderOf } from '../payout-holder';
import { RefundEvents } from '../refund-events';
import { mismatchOf } from '../../payout-mismatch';
import { ReportRefundSentCommand } from './report-refund-sent.command';

@CommandHandler(ReportRefundSentCommand)
export class ReportRefundSentHandler implements ICommandHandler<ReportRefundSentCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, refundId, txHash }: ReportRefundSentCommand): Promise<RefundView> {
    const found = await this.refunds.find(this.tx.manager, scope, refundId);
    if (!found) throw new NotFoundError('refund');
    // The form of a transaction id is the network's rail adapter's (normalised as its node reads it:
    // hex ids in lower case, Solana's base58 signatures as they are, since their case matters).
    const given = txHash.trim();
    const checked = found.network ? await this.queries.execute(new CheckPayoutTransactionIdQuery(scope.mode, found.network, given)) : null;
    const hash = checked?.ok ? checked.id : given;
    // The same report again (a retried request): the refund as it is.
    if ((found.status === 'SENT' || found.status === 'COMPLETED') && found.tx_hash === hash) return refundView(found);
    moveRefund(found.status, 'SENT');
    if (!checked?.ok) throw new ValidationFailedError({ tx_hash: checked?.problem ?? 'must be a transaction hash' });

    // What the chain says now (decisions §19, "What a payout report must prove").
    const check = await this.queries.execute(
      new VerifyPayoutQuery(scope.mode, found.network!, hash, found.address!, found.token_contract, found.payout_units!, {
        claimedHeight: found.claimed_height,
        seenUnmined: false,
      }),
    );
    const report: SentReport = { txHash: hash, confirmations: 0, seenUnmined: false, missingSince: null };
    let paying: PayoutTransferSeen[] | null = null;
    if (check.state === 'unknown') {
      // A node that shows unmined transactions does not know it: no transaction, nothing stored.
      if (check.showsUnmined) throw new TxNotFoundError(found.network!);
      // A chain without mempool queries: taken for REFUND_TX_GRACE_SECONDS, until the node shows it.
      report.missingSince = this.clock.now();
    } else if (check.state === 'pending') {
      // Seen unmined now, after the destination was set: new, whatever block it lands in.
      report.seenUnmined = true;
    } else if (check.state === 'judged') {
      if (check.verdict !== 'paid') throw mismatchOf(check.verdict, found);
      paying = check.transfers;
      report.confirmations = check.confirmations;
    }
    // `unavailable` (no node answers now): taken as it is, the worker checks it when the node answers.

    try {
      return await this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, refundId, true);
        if (!before) throw new NotFoundError('refund');
        if ((before.status === 'SENT' || before.status === 'COMPLETED') && before.tx_hash === hash) return refundView(before);
        moveRefund(before.status, 'SENT');
        // Shown to pay this refund: it takes its transfers now (or learns that another refund holds them).
        if (paying) {
          await this.commands.execute(new TakePayoutTransfersCommand(m, payoutHolderOf(before), before.payout_units!, hash, paying, this.clock.now()));
        }
        const after = await this.refunds.setSent(m, before, report, await this.clock.nowFor(scope, m));
        await this.events.changed(m, before, after);
        return refundView(after);
      });
    } catch (e) {
      // Another refund took the same transfers at the same moment.
      if (e instanceof PayoutTransfersTakenError) throw mismatchOf('taken', found);
      throw e;
    }
  }
}
