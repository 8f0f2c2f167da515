import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { AppConfig } from '../../shared/config/app-config';
import { someOrganizationFull } from '../../shared/db/fair-batch';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { Clock, ClockScope } from '../../shared/time/clock';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { GetInvoiceStatusesQuery } from '../invoices';
import { DuePeriods } from './billing/due-periods';
import { CatalogPass, PeriodInvoicer, scopeOfRecord } from './billing/period-invoicer';
import { dunningState, periodRetryDelayMs } from './domain/billing';
import { subscriptionView } from './dto/subscription.view';
import { SubscriptionEvents } from './commands/subscription-events';
import { OpenPeriodInvoice, SubscriptionsRepository, UnissuedPeriod } from './persistence/subscriptions.repository';
import { SubscriptionsConfig } from './subscriptions.config';

/** Subscriptions one transaction of a pass takes. */
const DUE_BATCH = 20;
/** Open period invoices one pass looks at. */
const RECONCILE_BATCH = 500;
/** Periods to invoice one claim takes. */
const ISSUE_BATCH = 20;
/** How long a claimed period is left to the instance that took it (one that died leaves it for others after that). */
const ISSUE_LEASE_MS = 5 * 60_000;

/** What one pass's invoice batches share: its start (periods failed since then wait for the next pass) and the schemas read. */
interface IssuePass {
  start: Date;
  catalog: CatalogPass;
}

/**
 * The subscriptions' scheduler, one in each server instance (registered with the service's
 * BackgroundWork: it starts after the migrations, never in CLI processes). Every SUBSCRIPTIONS_TICK_SECONDS:
 * 1. moves the subscriptions whose period invoice is due on to their next period, taking them
 *    FOR UPDATE SKIP LOCKED so two instances never work on one at once, and records each period due
 *    (subscription_invoices, without its invoice yet). Each batch is fair (at most WORKER_ORG_BATCH
 *    subscriptions of one organization's mode, organizations interleaved; one that could not be moved
 *    goes to the back of its organization's line, attempted_at). Test modes whose clock was moved are
 *    visited first at their own now (Clock.nowFor), so moving a test clock a month bills that month on
 *    the next tick;
 * 2. issues the invoices of the recorded periods through the invoices module, outside any lock of
 *    its own, in fair batches too (each invoice is unique per subscription and period start in the
 *    invoices table, so a period is invoiced once whatever happens). An invoice that cannot be made is
 *    logged, announced once (`subscription.invoice_failed`) and tried again on later passes behind the
 *    others; it never holds back the subscription's later periods or other subscriptions, of its own
 *    organization or another's;
 * 3. follows the period invoices not yet decided (GetInvoiceStatusesQuery of the invoices module), in
 *    fair batches, and applies dunning from the outcomes in period order (domain/billing.ts dunningState).
 * Steps 1 and 2 go in rounds, a batch of each per round (tick), so a period is invoiced in the round that
 * recorded it rather than after every other due subscription has been moved on.
 */
@Injectable()
export class SubscriptionScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SubscriptionScheduler');
  private readonly task = new PeriodicTask(
    () => this.tick(),
    (e) => this.logger.warn({ err: e.message }, 'subscription pass failed; retrying on the next tick'),
  );

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(PeriodInvoicer) private readonly invoicer: PeriodInvoicer,
    @Inject(DuePeriods) private readonly due: DuePeriods,
    @Inject(SubscriptionEvents) private readonly events: SubscriptionEvents,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SubscriptionsConfig) private readonly config: SubscriptionsConfig,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(AppConfig) private readonly app: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.work.whenReady(
      'subscription-scheduler',
      () => this.task.start(this.config.SUBSCRIPTIONS_TICK_SECONDS),
      () => this.task.runNow(),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.task.stop();
    await this.settling;
  }

  /**
   * One pass: periods due (moved test clocks first) and their invoices, in rounds, then payment outcomes.
   * A round moves one fair batch of due subscriptions per clock and then issues one fair batch of the
   * periods recorded; rounds go on while a batch was full (or an organization's share of it was). So an
   * organization's period is invoiced in the first round, however many subscriptions another organization
   * has due at the same moment: its volume is worked through round after round, never all of it first.
   */
  async tick(): Promise<{ issued: number; settled: number }> {
    const clocks: Array<{ nowOf: () => Date; scope: ClockScope | null }> = (await this.clock.movedScopes()).map(({ scope, offsetMs }) => ({
      nowOf: () => new Date(this.clock.now().getTime() + offsetMs),
      scope,
    }));
    clocks.push({ nowOf: () => this.clock.now(), scope: null });
    // Subscriptions that failed in this pass or were held elsewhere (per clock): left for the next pass, so
    // that one of them does not hold back the others.
    const passOver = clocks.map(() => new Set<string>());
    const dueLeft = clocks.map(() => true);
    const pass: IssuePass = { start: this.clock.now(), catalog: new Map() };
    let issued = 0;
    for (;;) {
      for (const [i, clock] of clocks.entries()) if (dueLeft[i]) dueLeft[i] = await this.moveDue(clock.nowOf, clock.scope, passOver[i]);
      const round = await this.issueRecorded(pass);
      issued += round.issued;
      if (!round.more && !dueLeft.some(Boolean)) break;
    }
    const settled = await this.reconcile();
    return { issued, settled };
  }

  /**
   * Moves one fair batch of due subscriptions on to their next period, recording each period due; answers
   * whether more may be due: the batch, or an organization's share of it, was full, or a subscription moved
   * is due again (several periods behind: a moved test clock, a service that was down), so the next round
   * moves it one more period, in turn with the others. Subscriptions held elsewhere are left for the next
   * pass (`passOver`), so that a pick of held rows neither ends the pass early nor is picked again in it.
   */
  private moveDue(nowOf: () => Date, scope: ClockScope | null, passOver: Set<string>): Promise<boolean> {
    return this.tx.run(async (m) => {
      const now = nowOf();
      const { due, skipped, full, retried } = await this.repo.lockDue(m, now, this.app.WORKER_ORG_BATCH, DUE_BATCH, scope, [...passOver]);
      for (const id of skipped) passOver.add(id);
      let behind = false;
      for (const subscription of due) {
        await m.query('SAVEPOINT subscription_due');
        try {
          await this.due.advance(m, subscription);
          if (retried.has(subscription.id)) await this.repo.clearAttempted(m, scopeOfRecord(subscription), subscription.id);
          await m.query('RELEASE SAVEPOINT subscription_due');
          if (subscription.nextInvoiceAt !== null && subscription.nextInvoiceAt.getTime() <= now.getTime()) behind = true;
        } catch (e) {
          await m.query('ROLLBACK TO SAVEPOINT subscription_due');
          await this.repo.attempted(m, scopeOfRecord(subscription), subscription.id);
          passOver.add(subscription.id);
          this.logger.warn(
            { event: 'subscription_invoice_failed', subscription_id: subscription.id, err: (e as Error).message },
            'subscription not moved to its next period; retrying on the next tick',
          );
        }
      }
      return full || behind;
    });
  }

  /**
   * Issues one fair batch of the invoices of the periods recorded without one, those waiting longest
   * first; answers how many were issued and whether more may wait. Each is made by the invoices module in
   * its own transaction, with no lock of ours held meanwhile. One that fails is logged
   * (`subscription_invoice_failed`), announced at its first failure (`subscription.invoice_failed`), and
   * goes to the back: it is tried again on the next pass, then after a growing wait (periodRetryDelayMs),
   * never blocking later periods or other subscriptions, whatever the failure.
   */
  private async issueRecorded(pass: IssuePass): Promise<{ issued: number; more: boolean }> {
    // Periods recorded by this pass's rounds too (recorded now), but none that failed in this pass.
    const now = this.clock.now();
    const claimed = await this.tx.runAlone((m) =>
      this.repo.claimUnissued(m, now, new Date(now.getTime() + ISSUE_LEASE_MS), this.app.WORKER_ORG_BATCH, ISSUE_BATCH, pass.start),
    );
    let issued = 0;
    for (const period of claimed) if (await this.issuePeriod(period, pass.catalog)) issued++;
    return { issued, more: claimed.length >= ISSUE_BATCH || someOrganizationFull(claimed, this.app.WORKER_ORG_BATCH) };
  }

  private async issuePeriod(period: UnissuedPeriod, catalog: CatalogPass): Promise<boolean> {
    const scope = scopeOfRecord(period);
    let invoiceId: string | null;
    try {
      const s = await this.repo.find(this.tx.manager, scope, period.subscriptionId);
      if (!s) throw new Error(`subscription ${period.subscriptionId} not found`);
      invoiceId = (await this.invoicer.issue(this.tx.manager, s, period.periodIndex, catalog, period.finalUsage)).invoiceId;
    } catch (e) {
      const error = (e as Error).message;
      // Later than the pass's start, so this pass does not take it again: the next one does after a first
      // failure, later ones after a growing wait (up to an hour).
      const retryAt = new Date(this.clock.now().getTime() + periodRetryDelayMs(period.attempts + 1));
      await this.tx.run(async (m) => {
        const attempts = await this.repo.markFailed(m, scope, period.subscriptionId, period.periodStart, error, retryAt);
        const s = await this.repo.find(m, scope, period.subscriptionId);
        if (attempts === 1 && s) await this.events.invoiceFailed(m, scope, s, { start: period.periodStart, end: period.periodEnd }, error, attempts);
      });
      this.logger.warn(
        {
          event: 'subscription_invoice_failed',
          subscription_id: period.subscriptionId,
          period_index: period.periodIndex,
          attempts: period.attempts + 1,
          retry_at: retryAt.toISOString(),
          err: error,
        },
        'period invoice not issued; the subscription goes on, and the period is tried again later',
      );
      return false;
    }
    if (invoiceId === null) {
      // A final usage invoice with nothing to bill: none is made.
      await this.tx.run((m) => this.repo.dropFinalUsage(m, scope, period.subscriptionId, period.periodStart));
      this.logger.log({ event: 'subscription_final_usage_none', subscription_id: period.subscriptionId, period_index: period.periodIndex });
      return false;
    }
    const issuedId = invoiceId;
    await this.tx.run(async (m) => {
      const s = await this.repo.find(m, scope, period.subscriptionId, true);
      const latest = await this.repo.markIssued(m, scope, period.subscriptionId, period.periodStart, issuedId);
      if (!s || !latest || s.latestInvoiceId === issuedId) return;
      const before = subscriptionView(s);
      s.latestInvoiceId = issuedId;
      s.updatedAt = await this.clock.nowFor(scope, m);
      await this.repo.save(m, s);
      await this.events.changed(m, scope, before, s);
    });
    this.logger.log({ event: 'subscription_invoiced', subscription_id: period.subscriptionId, invoice_id: invoiceId, period_index: period.periodIndex });
    return true;
  }

  private settling: Promise<unknown> | null = null;
  private settleAgain = false;

  /**
   * Settles the period invoices decided since the last pass now rather than at the next tick (a period
   * invoice just COMPLETED or VOIDED: PeriodInvoiceOutcomeHandler). One run at a time in this process; a
   * call during a run asks for one more run after it, so no decision is left for the tick.
   */
  settleSoon(): void {
    if (this.settling) {
      this.settleAgain = true;
      return;
    }
    this.settling = this.reconcile()
      .catch((e: Error) => this.logger.warn({ err: e.message }, 'settling period invoices failed; retrying on the next tick'))
      .finally(() => {
        this.settling = null;
        if (this.settleAgain) {
          this.settleAgain = false;
          this.settleSoon();
        }
      });
  }

  /** Applies the outcome of period invoices paid in full or voided since the last pass; returns how many. */
  private async reconcile(): Promise<number> {
    const open = await this.repo.openPeriodInvoices(this.tx.manager, this.app.WORKER_ORG_BATCH, RECONCILE_BATCH);
    const byScope = new Map<string, OpenPeriodInvoice[]>();
    for (const entry of open) byScope.set(`${entry.organizationId} ${entry.mode}`, [...(byScope.get(`${entry.organizationId} ${entry.mode}`) ?? []), entry]);
    let settled = 0;
    for (const entries of byScope.values()) {
      const scope = scopeOfRecord(entries[0]);
      const statuses = new Map(
        (
          await this.queries.execute(
            new GetInvoiceStatusesQuery(
              scope,
              entries.map((e) => e.invoiceId),
            ),
          )
        ).map((s) => [s.id, s] as const),
      );
      const ordered = [...entries].sort((a, b) => a.periodIndex - b.periodIndex);
      for (const entry of ordered) {
        const status = statuses.get(entry.invoiceId);
        // Paid once paid in full; unpaid once its payment window ended without that (voided, or
        // still partly paid); undecided until then.
        const outcome = status?.status === 'COMPLETED' ? 'paid' : status?.status === 'VOIDED' || status?.paymentWindowClosed ? 'unpaid' : null;
        if (outcome && (await this.settle(entry, outcome))) settled++;
      }
    }
    return settled;
  }

  private settle(entry: OpenPeriodInvoice, outcome: 'paid' | 'unpaid'): Promise<boolean> {
    return this.tx.run(async (m) => {
      const scope = scopeOfRecord(entry);
      const s = await this.repo.find(m, scope, entry.subscriptionId, true);
      if (!s || !(await this.repo.settle(m, scope, entry.subscriptionId, entry.periodStart, outcome))) return false;
      // Every decided period counts in period order, whatever order they were decided in.
      const next = dunningState(s.status, await this.repo.outcomes(m, scope, s.id));
      if (next.status === s.status && next.unpaidPeriods === s.unpaidPeriods && next.lastUnpaidIndex === s.lastUnpaidIndex) return true;
      const now = await this.clock.nowFor(scope, m);
      if (next.status === 'CANCELED' && s.status !== 'CANCELED') {
        // Periods already due that the scheduler has not reached are recorded first, as a cancel request
        // records them: what was served is billed whichever comes first, the scheduler's tick or this outcome.
        let ended = false;
        while (!ended && s.nextInvoiceAt !== null && s.nextInvoiceAt.getTime() <= now.getTime()) ended = await this.due.advance(m, s);
      }
      const before = subscriptionView(s);
      s.status = next.status;
      s.unpaidPeriods = next.unpaidPeriods;
      s.lastUnpaidIndex = next.lastUnpaidIndex;
      if (next.status === 'CANCELED' && before.status !== 'CANCELED') {
        s.canceledAt = now;
        s.nextInvoiceAt = null;
      }
      s.updatedAt = now;
      await this.repo.save(m, s);
      await this.events.changed(m, scope, before, s);
      this.logger.log({ event: 'subscription_dunning', subscription_id: s.id, invoice_id: entry.invoiceId, outcome, status: s.status });
      return true;
    });
  }
}
