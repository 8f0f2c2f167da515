import { Inject, Logger } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvalidStateTransitionError, NotFoundError } from '../../../../shared/errors/domain-error';
import { fromDb } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { SetInvoiceRefundedCommand } from '../../../invoices';
import { allowedRefundTargets } from '../../domain/refund-status';
import { ReleasePayoutTransfersCommand } from '../../../payouts';
import { mismatchOf } from '../../payout-mismatch';
import { type RefundRow, RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents, scopeOfRow } from '../refund-events';
import { ReleaseUncoveredRefundsCommand } from '../release-uncovered-refunds/release-uncovered-refunds.command';
import { SimulatedPayout, SimulatedPayoutTarget, SimulateRefundPayoutCommand } from './simulate-refund-payout.command';

/** The transaction id a simulated payout stands in with (a refund COMPLETED or SENT holds one); never a chain's. */
export function simulatedTxHash(refundId: string): string {
  return `simulated:${refundId}`;
}

@CommandHandler(SimulateRefundPayoutCommand)
export class SimulateRefundPayoutHandler implements ICommandHandler<SimulateRefundPayoutCommand> {
  private readonly logger = new Logger('RefundPayouts');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ target, result }: SimulateRefundPayoutCommand): Promise<SimulatedPayout> {
    return this.tx.run(async (m) => {
      const before = await this.find(m, target);
      // The same `paid` again (a retried click or call): the refund as it is.
      if (result === 'paid' && before.status === 'COMPLETED') return { row: before, mismatch: null };
      if (before.status !== 'AWAITING_PAYOUT' && before.status !== 'SENT') {
        throw new InvalidStateTransitionError(
          'refund',
          before.status,
          result === 'paid' ? 'COMPLETED' : 'AWAITING_PAYOUT',
          allowedRefundTargets(before.status),
        );
      }
      const scope = scopeOfRow(before);
      const now = await this.clock.nowFor(scope, m);
      let sent = before;
      if (before.status === 'AWAITING_PAYOUT') {
        // Reported, as the merchant's POST /refunds/{id}/sent would: refund.updated with the stand-in transaction.
        sent = await this.refunds.setSent(m, before, { txHash: simulatedTxHash(before.id), confirmations: 0, seenUnmined: false, missingSince: null }, now);
        await this.events.changed(m, before, sent);
      }
      if (result === 'paid') {
        // Confirmed to the destination for the payout: COMPLETED, as the refunds worker completes one.
        await this.refunds.setConfirmations(m, sent, sent.required_confirmations, now);
        const after = await this.refunds.setStatus(m, sent, 'COMPLETED', now);
        await this.refunds.lockInvoiceRefunds(m, scope, after.invoice_id);
        const refunded = await this.refunds.refundedUsd(m, scope, [after.invoice_id]);
        await this.commands.execute(new SetInvoiceRefundedCommand(m, scope, after.invoice_id, fromDb(refunded.get(after.invoice_id) ?? '0')));
        await this.events.changed(m, sent, after);
        return { row: after, mismatch: null };
      }
      // Short: taken back to AWAITING_PAYOUT as the worker takes back a payout that pays the destination less.
      const mismatch = `the transaction ${mismatchOf('short', sent).fields?.tx_hash ?? 'does not pay the refund'}`;
      await this.commands.execute(new ReleasePayoutTransfersCommand(m, sent.id));
      const after = await this.refunds.clearSent(m, sent, now);
      this.logger.warn({
        msg: 'reported refund payout taken back',
        event: 'refund_payout_mismatch',
        refund_id: sent.id,
        tx_hash: sent.tx_hash,
        verdict: 'short',
        reason: mismatch,
        simulated: true,
      });
      await this.events.changed(m, sent, after);
      // Open again: canceled if the invoice's payments no longer cover it, as the worker's take-back does.
      await this.commands.execute(new ReleaseUncoveredRefundsCommand(scope, after.invoice_id, m));
      const current = await this.refunds.find(m, scope, after.id);
      return { row: current ?? after, mismatch };
    });
  }

  /** The refund, locked: by the merchant's scope and id, or by the claim token; a live one is not found (test mode only). */
  private async find(m: EntityManager, target: SimulatedPayoutTarget): Promise<RefundRow> {
    if ('token' in target) {
      const row = await this.refunds.findByToken(m, target.token, true);
      if (!row || row.mode !== 'test') throw new NotFoundError('refund claim');
      return row;
    }
    const row = target.scope.mode === 'test' ? await this.refunds.find(m, target.scope, target.refundId, true) : null;
    if (!row) throw new NotFoundError('refund');
    return row;
  }
}
