import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../../shared/config/app-config';
import { someOrganizationFull } from '../../shared/db/fair-batch';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import { Clock, ClockScope } from '../../shared/time/clock';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { GetInvoiceStatusesQuery } from '../invoices';
import { CatalogPass, PeriodInvoicer, scopeOfRecord, termsOf } from './billing/period-invoicer';
import { afterSettlement, dueAction, scheduleAfterInvoice } from './domain/billing';
import { periodAt } from './domain/periods';
import { subscriptionView } from './dto/subscription.view';
import { SubscriptionEvents } from './commands/subscription-events';
import type { SubscriptionRecord } from './persistence/subscription.record';
import { OpenPeriodInvoice, SubscriptionsRepository } from './persistence/subscriptions.repository';
import { SubscriptionsConfig } from './subscriptions.config';

/** Subscriptions one transaction of a pass takes. */
const DUE_BATCH = 20;
/** Open period invoices one pass looks at. */
const RECONCILE_BATCH = 500;

/**
 * The subscriptions' scheduler, one in each server instance (registered with the service's
 * BackgroundWork: it starts after the migrations, never in CLI processes). Every SUBSCRIPTIONS_TICK_SECONDS:
 * 1. issues the period invoices that are due, taking subscriptions FOR UPDATE SKIP LOCKED so two
 *    instances never work on one at once; each invoice is also unique per subscription and period
 *    start in the invoices table, so a period is invoiced once whatever happens. Each batch is fair
 *    (at most WORKER_ORG_BATCH subscriptions of one organization's mode, organizations interleaved),
 *    and a subscription whose invoice cannot be issued now goes to the back of its organization's
 *    line (attempted_at), so one organization's volume or failures never keep another's waiting. Test modes whose
 *    clock was moved are visited first at their own now (Clock.nowFor), so moving a test clock a
 *    month issues that month's invoice on the next tick;
 * 2. follows the period invoices not yet paid or voided (GetInvoiceStatusesQuery of the invoices
 *    module) and applies dunning: voided unpaid makes the subscription PAST_DUE (CANCELED at the
 *    second), a later one paid in full makes it ACTIVE again.
 */
@Injectable()
export class SubscriptionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SubscriptionScheduler');
  private readonly task = new PeriodicTask(
    () => this.tick(),
    (e) => this.logger.warn({ err: e.message }, 'subscription pass failed; retrying on the next tick'),
  );

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(PeriodInvoicer) private readonly invoicer: PeriodInvoicer,
    @Inject(SubscriptionEvents) private readonly events: SubscriptionEvents,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SubscriptionsConfig) private readonly config: SubscriptionsConfig,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(AppConfig) private readonly app: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.work.whenReady('subscription scheduler', () => this.task.start(this.config.SUBSCRIPTIONS_TICK_SECONDS));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
    await this.settling;
  }

  /** One pass: due invoices (moved test clocks first), then payment outcomes. */
  async tick(): Promise<{ issued: number; settled: number }> {
    let issued = 0;
    for (const { scope, offsetMs } of await this.clock.movedScopes()) {
      issued += await this.issueDue(() => new Date(this.clock.now().getTime() + offsetMs), scope);
    }
    issued += await this.issueDue(() => this.clock.now(), null);
    const settled = await this.reconcile();
    return { issued, settled };
  }

  private async issueDue(nowOf: () => Date, scope: ClockScope | null): Promise<number> {
    let worked = 0;
    // Subscriptions that failed in this pass (an invoice that cannot be priced now): left for the next
    // pass, so that one of them does not hold back the others.
    const failed = new Set<string>();
    const catalog: CatalogPass = new Map();
    for (;;) {
      const more = await this.tx.run(async (m) => {
        const due = await this.repo.lockDue(m, nowOf(), this.app.WORKER_ORG_BATCH, DUE_BATCH, scope, [...failed]);
        for (const subscription of due) {
          await m.query('SAVEPOINT subscription_due');
          try {
            await this.advance(m, subscription, catalog);
            await m.query('RELEASE SAVEPOINT subscription_due');
            worked++;
          } catch (e) {
            await m.query('ROLLBACK TO SAVEPOINT subscription_due');
            await this.repo.attempted(m, subscription.id);
            failed.add(subscription.id);
            this.logger.warn(
              { event: 'subscription_invoice_failed', subscription_id: subscription.id, err: (e as Error).message },
              'period invoice not issued; retrying on the next tick',
            );
          }
        }
        return due.length >= DUE_BATCH || someOrganizationFull(due, this.app.WORKER_ORG_BATCH);
      });
      // Another batch while this one was full, or an organization's share of it was.
      if (!more) return worked;
    }
  }

  /** The due step of one locked subscription: its next period invoice, and/or its end when canceled at period end. */
  private async advance(m: EntityManager, s: SubscriptionRecord, catalog: CatalogPass): Promise<void> {
    const scope = scopeOfRecord(s);
    const before = subscriptionView(s);
    const terms = termsOf(s);
    const action = dueAction(s.paymentType, s.cancelAtPeriodEnd);
    const endsAt = s.nextInvoiceAt!;
    if (action !== 'end') {
      const index = s.nextInvoiceIndex;
      const { invoiceId, plan } = await this.invoicer.issue(m, s, index, catalog);
      await this.repo.recordPeriodInvoice(m, {
        subscriptionId: s.id,
        periodStart: plan.period.start,
        periodEnd: plan.period.end,
        periodIndex: index,
        organizationId: s.organizationId,
        mode: s.mode,
        invoiceId,
        outcome: null,
        createdAt: this.clock.now(),
      });
      const next = scheduleAfterInvoice(terms, s.startsAt, index);
      if (action === 'invoice') {
        const current = periodAt(terms, s.startsAt, next.currentIndex);
        s.currentPeriodIndex = next.currentIndex;
        s.currentPeriodStart = current.start;
        s.currentPeriodEnd = current.end;
      }
      s.latestInvoiceId = invoiceId;
      s.nextInvoiceIndex = next.nextInvoiceIndex;
      s.nextInvoiceAt = next.nextInvoiceAt;
      this.logger.log({ event: 'subscription_invoiced', subscription_id: s.id, invoice_id: invoiceId, period_index: index });
    }
    if (action !== 'invoice') {
      s.status = 'CANCELED';
      s.canceledAt = action === 'end' ? endsAt : s.currentPeriodEnd;
      s.nextInvoiceAt = null;
    }
    s.updatedAt = await this.clock.nowFor(scope);
    await this.repo.save(m, s);
    await this.events.changed(m, scope, before, s);
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
        ).map((s) => [s.id, s.status] as const),
      );
      const ordered = [...entries].sort((a, b) => a.periodIndex - b.periodIndex);
      for (const entry of ordered) {
        const status = statuses.get(entry.invoiceId);
        const outcome = status === 'COMPLETED' ? 'paid' : status === 'VOIDED' ? 'unpaid' : null;
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
      const next = afterSettlement({ status: s.status, unpaidPeriods: s.unpaidPeriods, lastUnpaidIndex: s.lastUnpaidIndex }, outcome, entry.periodIndex);
      if (next.status === s.status && next.unpaidPeriods === s.unpaidPeriods && next.lastUnpaidIndex === s.lastUnpaidIndex) return true;
      const scope = scopeOfRecord(s);
      const now = await this.clock.nowFor(scope);
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
