import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { AppConfig } from '../../shared/config/app-config';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { Clock } from '../../shared/time/clock';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { txGraceOver } from './domain/payout-verdict';
import { PayoutsConfig } from './payouts.config';
import {
  ExpireDueClaimsCommand,
  ForgetReleasedPayoutCommand,
  GetSentPayoutQuery,
  ListReleasedPayoutsQuery,
  ListSentPayoutsQuery,
  type PayoutCheckOutcome,
  RecordPayoutCheckCommand,
  type SentPayout,
} from './ports/watched-payouts';
import { VerifyPayoutQuery } from './queries/verify-payout/verify-payout.query';

/** Payouts one pass checks in each state (at most WORKER_ORG_BATCH of them per organization and mode). */
const BATCH = 100;
/** How long a payout taken back after the grace is still watched (it may be mined yet, if someone sends it again). */
const RELEASED_WATCH_MS = 7 * 24 * 3600 * 1000;

/**
 * The payout worker, every REFUND_CHECK_SECONDS (registered by the module's lifecycle hook with the
 * service's BackgroundWork under the name `refund-payouts`: it starts after the migrations, never in a
 * CLI process). The payouts are the owner's rows (refunds today), asked and moved through this
 * module's port (ports/watched-payouts.ts):
 *
 * - claims past their time without a destination are closed (ExpireDueClaimsCommand; a moved test
 *   clock counts);
 * - each sent payout's transaction is read on its chain and judged (VerifyPayoutQuery): unmined, its
 *   sighting is recorded; out of the node's sight for REFUND_TX_GRACE_SECONDS, or mined and not paying
 *   the payout, it is taken back; paying, its confirmations are recorded (the owner takes its transfers
 *   and completes it at its required confirmations);
 * - a payout taken back after the grace that is mined later is logged (watchReleased).
 *
 * Each pass takes its payouts in fair batches (shared/db/fair-batch.ts, in the owner's answer): at most
 * WORKER_ORG_BATCH of one organization's mode, organizations interleaved, least recently checked
 * first. Every outcome is applied by the owner under its row lock while the payout still waits on the
 * same transaction, so instances running the same pass do not double a move.
 */
@Injectable()
export class PayoutsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('RefundPayouts');
  private readonly task = new PeriodicTask(
    () => this.pass(),
    (error) => this.logger.warn({ msg: 'refunds pass failed; tried again later', event: 'refund_pass_failed', error: error.message }),
  );

  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(PayoutsConfig) private readonly config: PayoutsConfig,
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

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  async pass(): Promise<void> {
    await this.commands.execute(new ExpireDueClaimsCommand(this.app.WORKER_ORG_BATCH, BATCH));
    await this.confirm();
    await this.watchReleased();
  }

  private async confirm(): Promise<void> {
    const sent = await this.queries.execute(new ListSentPayoutsQuery(this.app.WORKER_ORG_BATCH, BATCH));
    for (const { id, scope } of sent) {
      const payout = await this.queries.execute(new GetSentPayoutQuery(scope, id));
      if (payout) await this.checkSent(payout);
    }
  }

  /**
   * One sent payout against its chain (decisions §19, "What a payout report must prove"): a transaction
   * out of the node's sight longer than REFUND_TX_GRACE_SECONDS is taken back; one seen unmined is
   * remembered as new; a mined one must pay the destination enough in a block after the claim; its
   * confirmations are counted (the owner completes the payout at its required confirmations).
   */
  private async checkSent(payout: SentPayout): Promise<void> {
    const check = await this.queries.execute(
      new VerifyPayoutQuery(payout.scope.mode, payout.network, payout.txHash, payout.address, payout.tokenContract, payout.units, {
        claimedHeight: payout.claimedHeight,
        seenUnmined: payout.seenUnmined,
      }),
    );
    const record = (outcome: PayoutCheckOutcome) => this.commands.execute(new RecordPayoutCheckCommand(payout.scope, payout.id, payout.txHash, outcome));
    if (check.state === 'unavailable') return;
    if (check.state === 'unknown') {
      const missingSince = payout.missingSince ?? this.clock.now();
      if (txGraceOver(missingSince, this.clock.now(), this.config.REFUND_TX_GRACE_SECONDS))
        return record({ kind: 'taken_back', reason: 'not_seen', released: true });
      if (!payout.missingSince) await record({ kind: 'sighting', seenUnmined: payout.seenUnmined, missingSince });
      return;
    }
    if (check.state === 'pending') {
      if (payout.missingSince || !payout.seenUnmined) await record({ kind: 'sighting', seenUnmined: true, missingSince: null });
      return;
    }
    if (check.verdict !== 'paid') return record({ kind: 'taken_back', reason: check.verdict, released: false });
    await record({ kind: 'confirmed', confirmations: check.confirmations, transfers: check.transfers });
  }

  /**
   * Payouts taken back after the grace, watched for RELEASED_WATCH_MS: one that is mined paying the
   * destination after all leaves its payout as it is (a canceled refund stays canceled; one waiting for
   * its payout may have it reported again) and is logged for the merchant's books.
   */
  private async watchReleased(): Promise<void> {
    const due = await this.queries.execute(
      new ListReleasedPayoutsQuery(new Date(this.clock.now().getTime() - RELEASED_WATCH_MS), this.app.WORKER_ORG_BATCH, BATCH),
    );
    for (const payout of due) {
      const check = await this.queries.execute(
        new VerifyPayoutQuery(payout.scope.mode, payout.network, payout.txHash, payout.address, payout.tokenContract, payout.units, {
          claimedHeight: payout.claimedHeight,
          seenUnmined: true,
        }),
      );
      if (check.state !== 'judged') continue;
      if (check.verdict === 'paid') {
        this.logger.warn({
          msg: 'a payout taken back after the grace was mined after all; the refund keeps its status',
          event: 'refund_released_payout_mined',
          refund_id: payout.id,
          status: payout.status,
          tx_hash: payout.txHash,
        });
      }
      await this.commands.execute(new ForgetReleasedPayoutCommand(payout.scope, payout.id));
    }
  }
}
