import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../shared/auth/request-context';
import { AppConfig } from '../../shared/config/app-config';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { Clock } from '../../shared/time/clock';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { SetInvoiceRefundedCommand } from '../invoices';
import { PayoutTransfersTakenError, ReleasePayoutTransfersCommand, TakePayoutTransfersCommand, VerifyPayoutQuery } from '../payouts';
import { fromDb } from '../../shared/money/money';
import { RefundEvents } from './commands/refund-events';
import { claimOpen, txGraceOver } from './domain/refund-expiry';
import { type RefundRow, RefundsRepository } from './persistence/refunds.repository';
import { RefundsConfig } from './refunds.config';

/** Refunds one pass checks in each state (at most WORKER_ORG_BATCH of them per organization and mode). */
const BATCH = 100;
/** How long a payout taken back after the grace is still watched (it may be mined yet, if someone sends it again). */
const RELEASED_WATCH_MS = 7 * 24 * 3600 * 1000;

/**
 * The refunds' background work, every REFUND_CHECK_SECONDS (registered by the module's lifecycle hook
 * with the service's BackgroundWork: it starts after the migrations, never in a CLI process):
 *
 * - claims past their time without a destination become EXPIRED (a moved test clock counts);
 * - each SENT refund's transaction is read on its chain (checkSent): once mined it must pay the
 *   destination enough after the claim through transfers no other refund holds (it takes them then);
 *   its confirmations are counted (refund.updated) and at the provider's required confirmations it is
 *   COMPLETED (refund.completed); a transaction that fails those checks, or stays out of the node's sight
 *   for REFUND_TX_GRACE_SECONDS, puts the refund back to AWAITING_PAYOUT (refund.updated), for the
 *   merchant to send and report again (or cancel);
 * - a payout taken back after the grace that is mined later is logged (watchReleased).
 *
 * Each pass takes its refunds in fair batches (shared/db/fair-batch.ts): at most WORKER_ORG_BATCH of
 * one organization's mode, organizations interleaved, least recently checked first; taking a refund
 * stamps it checked, so one the pass cannot finish (a payout not on the chain yet or short of its
 * confirmations, a claim still open at its organization's now) goes to the back of its
 * organization's line, and no organization's rows keep another's waiting.
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
    @Inject(AppConfig) private readonly app: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.work.whenReady(
      'refund-payouts',
      () => this.task.start(this.config.REFUND_CHECK_SECONDS),
      () => this.task.runNow(),
    );
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  async pass(): Promise<void> {
    await this.expire();
    await this.confirm();
    await this.watchReleased();
  }

  private async expire(): Promise<void> {
    const moved = await this.clock.movedScopes();
    const ahead = Math.max(0, ...moved.map((s) => s.offsetMs));
    const due = await this.refunds.expiredClaims(this.tx.manager, new Date(this.clock.now().getTime() + ahead), this.app.WORKER_ORG_BATCH, BATCH);
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
    const sent = await this.refunds.sent(this.tx.manager, this.app.WORKER_ORG_BATCH, BATCH);
    for (const { id, organization_id, mode } of sent) {
      await this.checkSent({ organizationId: organization_id as never, mode }, id);
    }
  }

  /**
   * One SENT refund against its chain (decisions §19, "What a payout report must prove"): a transaction
   * out of the node's sight longer than REFUND_TX_GRACE_SECONDS is taken back (AWAITING_PAYOUT); one seen
   * unmined is remembered as new; a mined one must pay the destination enough in a block after the
   * claim, through transfers no other refund holds, which this refund then takes; its confirmations
   * are counted to COMPLETED.
   */
  private async checkSent(scope: Scope, id: string): Promise<void> {
    const row = await this.refunds.find(this.tx.manager, scope, id);
    if (!row || row.status !== 'SENT' || !row.tx_hash || !row.network || !row.address || !row.payout_units) return;
    const txHash = row.tx_hash;
    const payoutUnits = row.payout_units;
    const check = await this.queries.execute(
      new VerifyPayoutQuery(scope.mode, row.network, txHash, row.address, row.token_contract, payoutUnits, {
        claimedHeight: row.claimed_height,
        seenUnmined: row.tx_seen_unmined,
      }),
    );
    if (check.state === 'unavailable') return;
    // Each change locks the refund and re-checks that it still waits on the same transaction.
    const locked = async (change: (m: EntityManager, before: RefundRow) => Promise<void>) =>
      this.tx.run(async (m) => {
        const before = await this.refunds.find(m, scope, id, true);
        if (before && before.status === 'SENT' && before.tx_hash === txHash) await change(m, before);
      });
    const takeBack = (reason: string, released: boolean) =>
      locked(async (m, before) => {
        const now = await this.clock.nowFor(scope, m);
        await this.commands.execute(new ReleasePayoutTransfersCommand(m, id));
        const after = await this.refunds.clearSent(m, id, now, released ? { txHash, at: this.clock.now() } : null);
        this.logger.warn({ msg: 'reported refund payout taken back', event: 'refund_payout_mismatch', refund_id: id, tx_hash: txHash, verdict: reason });
        await this.events.changed(m, before, after);
      });

    if (check.state === 'unknown') {
      const missingSince = row.tx_missing_since ?? this.clock.now();
      if (txGraceOver(missingSince, this.clock.now(), this.config.REFUND_TX_GRACE_SECONDS)) return takeBack('not_seen', true);
      if (!row.tx_missing_since) await locked((m) => this.refunds.setTxSighting(m, id, row.tx_seen_unmined, missingSince).then(() => undefined));
      return;
    }
    if (check.state === 'pending') {
      if (row.tx_missing_since || !row.tx_seen_unmined) await locked((m) => this.refunds.setTxSighting(m, id, true, null).then(() => undefined));
      return;
    }
    if (check.verdict !== 'paid') return takeBack(check.verdict, false);
    try {
      await locked(async (m, before) => {
        const now = await this.clock.nowFor(scope, m);
        const payout = { id: before.id, organization_id: before.organization_id, mode: before.mode, network: before.network! };
        await this.commands.execute(new TakePayoutTransfersCommand(m, payout, payoutUnits, txHash, check.transfers, this.clock.now()));
        let after = before;
        if (before.tx_missing_since) after = await this.refunds.setTxSighting(m, id, before.tx_seen_unmined, null);
        if (check.confirmations !== before.confirmations) after = await this.refunds.setConfirmations(m, id, check.confirmations, now);
        if (after.confirmations >= after.required_confirmations) {
          after = await this.refunds.setStatus(m, id, 'COMPLETED', now);
          // The invoice's refunded_usd, in the same transaction.
          const refunded = await this.refunds.refundedUsd(m, scope, [after.invoice_id]);
          await this.commands.execute(new SetInvoiceRefundedCommand(m, scope, after.invoice_id, fromDb(refunded.get(after.invoice_id) ?? '0')));
        }
        if (after.status !== before.status || after.confirmations !== before.confirmations) await this.events.changed(m, before, after);
      });
    } catch (e) {
      // Its transfers pay another refund already: this report pays nothing.
      if (e instanceof PayoutTransfersTakenError) return takeBack('taken', false);
      throw e;
    }
  }

  /**
   * Payouts taken back after the grace, watched for RELEASED_WATCH_MS: one that is mined paying the
   * destination after all leaves its refund as it is (CANCELED stays CANCELED; one waiting for its
   * payout may have it reported again) and is logged for the merchant's books.
   */
  private async watchReleased(): Promise<void> {
    const due = await this.refunds.releasedPayouts(this.tx.manager, new Date(this.clock.now().getTime() - RELEASED_WATCH_MS), BATCH);
    for (const { id, organization_id, mode } of due) {
      const scope: Scope = { organizationId: organization_id as never, mode };
      const row = await this.refunds.find(this.tx.manager, scope, id);
      if (!row?.released_tx_hash || !row.network || !row.address || !row.payout_units) continue;
      const check = await this.queries.execute(
        new VerifyPayoutQuery(mode, row.network, row.released_tx_hash, row.address, row.token_contract, row.payout_units, {
          claimedHeight: row.claimed_height,
          seenUnmined: true,
        }),
      );
      if (check.state !== 'judged') continue;
      if (check.verdict === 'paid') {
        this.logger.warn({
          msg: 'a payout taken back after the grace was mined after all; the refund keeps its status',
          event: 'refund_released_payout_mined',
          refund_id: id,
          status: row.status,
          tx_hash: row.released_tx_hash,
        });
      }
      await this.refunds.forgetReleased(this.tx.manager, id);
    }
  }
}
