import { Inject, Logger } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { fromDb } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { SetInvoiceRefundedCommand } from '../../../invoices';
import { PayoutTransfersTakenError, RecordPayoutCheckCommand, ReleasePayoutTransfersCommand, TakePayoutTransfersCommand } from '../../../payouts';
import { type RefundRow, RefundsRepository } from '../../persistence/refunds.repository';
import { payoutHolderOf } from '../payout-holder';
import { ReleaseUncoveredRefundsCommand } from '../release-uncovered-refunds/release-uncovered-refunds.command';
import { RefundEvents } from '../refund-events';

/**
 * Answers the payout worker's RecordPayoutCheckCommand (payouts' port): what the chain showed of a SENT
 * refund's transaction moves the refund (decisions §19). Each change locks the refund and re-checks that
 * it still waits on the same transaction, so instances running the same pass do not double a move:
 *
 * - `sighting`: the node's view is kept (seen unmined, or missing since when), no event;
 * - `taken_back`: back to AWAITING_PAYOUT, its transfers released (refund.updated; logged as
 *   refund_payout_mismatch), a payout taken back after the grace kept in view (`released`); open again, it is
 *   canceled when the invoice's payments no longer cover it (a reorg took one back while it was SENT:
 *   ReleaseUncoveredRefundsCommand, in the same transaction);
 * - `confirmed`: it takes the transfers that pay it (taken back as `taken` when another refund holds
 *   them), its confirmations are counted (refund.updated) and at the required confirmations it is
 *   COMPLETED (refund.completed) with the invoice's refunded_usd, in the same transaction.
 */
@CommandHandler(RecordPayoutCheckCommand)
export class RecordPayoutCheckHandler implements ICommandHandler<RecordPayoutCheckCommand> {
  private readonly logger = new Logger('RefundPayouts');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, id, txHash, outcome }: RecordPayoutCheckCommand): Promise<void> {
    switch (outcome.kind) {
      case 'sighting':
        return this.locked(scope, id, txHash, (m, before) =>
          this.refunds.setTxSighting(m, before, outcome.seenUnmined, outcome.missingSince).then(() => undefined),
        );
      case 'taken_back':
        return this.takeBack(scope, id, txHash, outcome.reason, outcome.released);
      case 'confirmed':
        try {
          await this.locked(scope, id, txHash, async (m, before) => {
            const now = await this.clock.nowFor(scope, m);
            await this.commands.execute(
              new TakePayoutTransfersCommand(m, payoutHolderOf(before), before.payout_units!, txHash, outcome.transfers, this.clock.now()),
            );
            let after = before;
            if (before.tx_missing_since) after = await this.refunds.setTxSighting(m, before, before.tx_seen_unmined, null);
            if (outcome.confirmations !== before.confirmations) after = await this.refunds.setConfirmations(m, before, outcome.confirmations, now);
            if (after.confirmations >= after.required_confirmations) {
              after = await this.refunds.setStatus(m, before, 'COMPLETED', now);
              // The invoice's refunded_usd, in the same transaction.
              await this.refunds.lockInvoiceRefunds(m, scope, after.invoice_id);
              const refunded = await this.refunds.refundedUsd(m, scope, [after.invoice_id]);
              await this.commands.execute(new SetInvoiceRefundedCommand(m, scope, after.invoice_id, fromDb(refunded.get(after.invoice_id) ?? '0')));
            }
            if (after.status !== before.status || after.confirmations !== before.confirmations) await this.events.changed(m, before, after);
          });
        } catch (e) {
          // Its transfers pay another refund already: this report pays nothing.
          if (e instanceof PayoutTransfersTakenError) return this.takeBack(scope, id, txHash, 'taken', false);
          throw e;
        }
    }
  }

  /** A change under the refund's row lock, made only while it is SENT on the same transaction. */
  private locked(scope: Scope, id: string, txHash: string, change: (m: EntityManager, before: RefundRow) => Promise<void>): Promise<void> {
    return this.tx.run(async (m) => {
      const before = await this.refunds.find(m, scope, id, true);
      if (before && before.status === 'SENT' && before.tx_hash === txHash) await change(m, before);
    });
  }

  private takeBack(scope: Scope, id: string, txHash: string, reason: string, released: boolean): Promise<void> {
    return this.tx.run(async (m) => {
      // The invoice's refund lock before the refund's row, the order the release below (and every refund of the
      // invoice's cover) takes them in.
      const seen = await this.refunds.find(m, scope, id);
      if (!seen || seen.status !== 'SENT' || seen.tx_hash !== txHash) return;
      await this.refunds.lockInvoiceRefunds(m, scope, seen.invoice_id);
      const before = await this.refunds.find(m, scope, id, true);
      if (!before || before.status !== 'SENT' || before.tx_hash !== txHash) return;
      const now = await this.clock.nowFor(scope, m);
      await this.commands.execute(new ReleasePayoutTransfersCommand(m, id));
      const after = await this.refunds.clearSent(m, before, now, released ? { txHash, at: this.clock.now() } : null);
      this.logger.warn({ msg: 'reported refund payout taken back', event: 'refund_payout_mismatch', refund_id: id, tx_hash: txHash, verdict: reason });
      await this.events.changed(m, before, after);
      // Waiting for a payout again, it promises money again: canceled (newest first) if the invoice no longer has it.
      await this.commands.execute(new ReleaseUncoveredRefundsCommand(scope, before.invoice_id, m));
    });
  }
}
