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
import { dunningState } from './domain/billing';
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

  /** One pass: periods due (moved test clocks first), their invoices, then payment outcomes. */
  async tick(): Promise<{ issued: number; settled: number }> {
    for (const { scope, offsetMs } of await this.clock.movedScopes()) {
      await this.issueDue(() => new Date(this.clock.now().getTime() + offsetMs), scope);
    }
    await this.issueDue(() => this.clock.now(), null);
    const issued = await this.issuePending();
    const settled = await this.reconcile();
    return { issued, settled };
  }

  private async issueDue(nowOf: () => Date, scope: ClockScope | null): Promise<number> {
    let worked = 0;
    // Subscriptions that failed in this pass: left for the next pass, so that one of them does not
    // hold back the others.
    const failed = new Set<string>();
    for (;;) {
      const more = await this.tx.run(async (m) => {
        const due = await this.repo.lockDue(m, nowOf(), this.app.WORKER_ORG_BATCH, DUE_BATCH, scope, [...failed]);
        for (const subscription of due) {
          await m.query('SAVEPOINT subscription_due');
          try {
            await this.due.advance(m, subscription);
            await m.query('RELEASE SAVEPOINT subscription_due');
            worked++;
          } catch (e) {
            await m.query('ROLLBACK TO SAVEPOINT subscription_due');
            await this.repo.attempted(m, subscription.id);
            failed.add(subscription.id);
            this.logger.warn(
              { event: 'subscription_invoice_failed', subscription_id: subscription.id, err: (e as Error).message },
              'subscription not moved to its next period; retrying on the next tick',
            );
          }
        }
        return due.length >= DUE_BATCH || someOrganizationFull(due, this.app.WORKER_ORG_BATCH);
      });
      // Another batch while this one was full, or an organization's share of it was.
      if (!more) return worked;
    }
  }

  /**
   * Issues the invoices of the periods recorded without one, those waiting longest first; returns how
   * many were issued. Each is made by the invoices module in its own transaction, with no lock of ours
   * held meanwhile. One that fails is logged (`subscription_invoice_failed`), announced at its first
   * failure (`subscription.invoice_failed`), and goes to the back: it is tried again on the next pass,
   * never blocking later periods or other subscriptions, whatever the failure.
   */
  private async issuePending(): Promise<number> {
    const passStart = this.clock.now();
    const catalog: CatalogPass = new Map();
    let issued = 0;
    for (;;) {
      const claimed = await this.tx.runAlone((m) =>
        this.repo.claimUnissued(m, passStart, new Date(passStart.getTime() + ISSUE_LEASE_MS), this.app.WORKER_ORG_BATCH, ISSUE_BATCH),
      );
      for (const period of claimed) if (await this.issuePeriod(period, catalog)) issued++;
      // Another batch while this one was full, or an organization's share of it was.
      if (claimed.length < ISSUE_BATCH && !someOrganizationFull(claimed, this.app.WORKER_ORG_BATCH)) return issued;
    }
  }

  private async issuePeriod(period: UnissuedPeriod, catalog: CatalogPass): Promise<boolean> {
    const scope = scopeOfRecord(period);
    let invoiceId: string;
    try {
      const s = await this.repo.find(this.tx.manager, scope, period.subscriptionId);
      if (!s) throw new Error(`subscription ${period.subscriptionId} not found`);
      invoiceId = (await this.invoicer.issue(this.tx.manager, s, period.periodIndex, catalog)).invoiceId;
    } catch (e) {
      const error = (e as Error).message;
      // Later than the pass's start, so this pass does not take it again: the next one does.
      const retryAt = new Date(this.clock.now().getTime() + 1);
      await this.tx.run(async (m) => {
        const attempts = await this.repo.markFailed(m, period.subscriptionId, period.periodStart, error, retryAt);
        const s = await this.repo.find(m, scope, period.subscriptionId);
        if (attempts === 1 && s) await this.events.invoiceFailed(m, scope, s, { start: period.periodStart, end: period.periodEnd }, error, attempts);
      });
      this.logger.warn(
        {
          event: 'subscription_invoice_failed',
          subscription_id: period.subscriptionId,
          period_index: period.periodIndex,
          attempts: period.attempts + 1,
          err: error,
        },
        'period invoice not issued; the subscription goes on, and the period is tried again on the next pass',
      );
      return false;
    }
    await this.tx.run(async (m) => {
      const s = await this.repo.lockById(m, period.subscriptionId);
      const latest = await this.repo.markIssued(m, period.subscriptionId, period.periodStart, invoiceId);
      if (!s || !latest || s.latestInvoiceId === invoiceId) return;
      const before = subscriptionView(s);
      s.latestInvoiceId = invoiceId;
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
      const s = await this.repo.lockById(m, entry.subscriptionId);
      if (!s || !(await this.repo.settle(m, entry.subscriptionId, entry.periodStart, outcome))) return false;
      const before = subscriptionView(s);
      // Every decided period counts in period order, whatever order they were decided in.
      const next = dunningState(s.status, await this.repo.outcomes(m, s.id));
      if (next.status === s.status && next.unpaidPeriods === s.unpaidPeriods && next.lastUnpaidIndex === s.lastUnpaidIndex) return true;
      const scope = scopeOfRecord(s);
      const now = await this.clock.nowFor(scope, m);
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
