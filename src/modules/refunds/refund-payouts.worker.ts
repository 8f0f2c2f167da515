import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { Clock } from '../../shared/time/clock';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { SetInvoiceRefundedCommand } from '../invoices';
import { CheckPayoutQuery } from '../rails';
import { fromDb } from '../../shared/money/money';
import { RefundEvents } from './commands/refund-events';
import { claimOpen, judgePayout } from './domain/refund-expiry';
import { RefundsRepository } from './persistence/refunds.repository';
import { RefundsConfig } from './refunds.config';

const BATCH = 100;

/**
 * The refunds' background work, every REFUND_CHECK_SECONDS (registered by the module's lifecycle hook
 * with the service's BackgroundWork: it starts after the migrations, never in a CLI process):
 *
 * - claims past their time without a destination become EXPIRED (a moved test clock counts);
 * - each SENT refund's transaction is read on its chain: its confirmations are counted (refund.updated)
 *   and at the provider's required confirmations it is COMPLETED (refund.completed); a transaction the
 *   chain shows failed or paying the destination less than the payout puts the refund back to
 *   AWAITING_PAYOUT (refund.updated), for the merchant to send and report again.
 *
 * Every change locks its refund's row and re-checks its state, so instances running the same pass
 * do not double a move.
 */
@Injectable()
export class RefundPayoutsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RefundPayouts');
  private readonly task = new PeriodicTask(
    () => this.pass(),
    (error) => this.logger.warn({ msg: 'refunds pass failed; tried again later', event: 'refund_pass_failed', error: error.message }),
  );

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(RefundsConfig) private readonly config: RefundsConfig,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
  ) {}

  onApplicationBootstrap(): void {
    this.work.whenReady('refund payouts', () => this.task.start(this.config.REFUND_CHECK_SECONDS));
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  async pass(): Promise<void> {
    await this.expire();
    await this.confirm();
  }

  private async expire(): Promise<void> {
    const moved = await this.clock.movedScopes();
    const ahead = Math.max(0, ...moved.map((s) => s.offsetMs));
    const due = await this.refunds.expiredClaims(this.tx.manager, new Date(this.clock.now().getTime() + ahead), BATCH);
    for (const { id, organization_id, mode } of due) {
      const scope = { organizationId: organization_id as never, mode };
      await this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, id, true);
        const now = await this.clock.nowFor(scope, m);
        if (!before || before.status !== 'AWAITING_DESTINATION' || claimOpen(before.expires_at, now)) return;
        const after = await this.refunds.setStatus(m, id, 'EXPIRED', now);
        await this.events.changed(m, before, after);
      });
    }
  }

  private async confirm(): Promise<void> {
    const sent = await this.refunds.sent(this.tx.manager, BATCH);
    for (const { id, organization_id, mode } of sent) {
      const scope = { organizationId: organization_id as never, mode };
      const row = await this.refunds.find(this.tx.manager, scope, id);
      if (!row || row.status !== 'SENT' || !row.tx_hash || !row.network || !row.address || !row.payout_units) continue;
      const check = await this.queries.execute(new CheckPayoutQuery(mode, row.network, row.tx_hash, row.address, row.token_contract));
      if (check.state === 'unavailable' || check.state === 'unknown') continue;
      const verdict = judgePayout(check, row.payout_units);
      await this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, id, true);
        if (!before || before.status !== 'SENT' || before.tx_hash !== row.tx_hash) return;
        const now = await this.clock.nowFor(scope, m);
        if (verdict !== 'paid') {
          const after = await this.refunds.clearSent(m, id, now);
          this.logger.warn({ msg: 'reported refund payout does not pay the destination', event: 'refund_payout_mismatch', refund_id: id, verdict });
          await this.events.changed(m, before, after);
          return;
        }
        let after = before;
        if (check.confirmations !== before.confirmations) after = await this.refunds.setConfirmations(m, id, check.confirmations, now);
        if (after.confirmations >= after.required_confirmations) {
          after = await this.refunds.setStatus(m, id, 'COMPLETED', now);
          // The invoice's refunded_usd, in the same transaction.
          const refunded = await this.refunds.refundedUsd(m, scope, [after.invoice_id]);
          await this.commands.execute(new SetInvoiceRefundedCommand(m, scope, after.invoice_id, fromDb(refunded.get(after.invoice_id) ?? '0')));
        }
        if (after !== before) await this.events.changed(m, before, after);
      });
    }
  }
}
