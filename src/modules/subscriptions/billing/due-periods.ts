import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../../shared/time/clock';
import { SubscriptionEvents } from '../commands/subscription-events';
import { dueAction, finalUsagePlan, scheduleAfterInvoice } from '../domain/billing';
import { periodAt } from '../domain/periods';
import { subscriptionView } from '../dto/subscription.view';
import type { SubscriptionInvoiceRecord, SubscriptionRecord } from '../persistence/subscription.record';
import { SubscriptionsRepository } from '../persistence/subscriptions.repository';
import { scopeOfRecord, termsOf } from './period-invoicer';

/**
 * A subscription's periods as they fall due: what the scheduler does to each subscription it finds due,
 * and what a cancel now does first to a subscription the scheduler has not reached yet, so that a period
 * already over is billed whichever of the two comes first.
 */
@Injectable()
export class DuePeriods {
  private readonly logger = new Logger('SubscriptionScheduler');

  constructor(
    @Inject(SubscriptionsRepository) private readonly repo: SubscriptionsRepository,
    @Inject(SubscriptionEvents) private readonly events: SubscriptionEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The record of an invoice fallen due, to be issued by the scheduler's next pass. */
  private due(s: SubscriptionRecord, index: number, period: { start: Date; end: Date }, finalUsage: boolean): SubscriptionInvoiceRecord {
    const now = this.clock.now();
    return {
      subscriptionId: s.id,
      periodStart: period.start,
      periodEnd: period.end,
      periodIndex: index,
      organizationId: s.organizationId,
      mode: s.mode,
      invoiceId: null,
      outcome: null,
      createdAt: now,
      attempts: 0,
      lastError: null,
      retryAt: now,
      finalUsage,
    };
  }

  /**
   * The due step of one locked subscription: the period due recorded (its invoice is issued by the
   * scheduler's next pass) and the subscription moved on, and/or its end when canceled at period end.
   * True when it ended (CANCELED).
   */
  async advance(m: EntityManager, s: SubscriptionRecord): Promise<boolean> {
    const scope = scopeOfRecord(s);
    const before = subscriptionView(s);
    const terms = termsOf(s);
    const action = dueAction(s.paymentType, s.cancelAtPeriodEnd);
    const endsAt = s.nextInvoiceAt!;
    if (action !== 'end') {
      const index = s.nextInvoiceIndex;
      const period = periodAt(terms, s.startsAt, index);
      await this.repo.recordPeriodInvoice(m, this.due(s, index, period, false));
      const next = scheduleAfterInvoice(terms, s.startsAt, index);
      if (action === 'invoice') {
        const current = periodAt(terms, s.startsAt, next.currentIndex);
        s.currentPeriodIndex = next.currentIndex;
        s.currentPeriodStart = current.start;
        s.currentPeriodEnd = current.end;
      }
      s.nextInvoiceIndex = next.nextInvoiceIndex;
      s.nextInvoiceAt = next.nextInvoiceAt;
      this.logger.log({ event: 'subscription_period_due', subscription_id: s.id, period_index: index });
    }
    if (action === 'end' && s.nextInvoiceIndex > 0) {
      // ADVANCE ends before its next period: the usage of the period it served is billed in a final invoice
      // (issued by the scheduler's next pass; dropped there when that usage costs nothing). One that ends
      // before its first period served nothing.
      const final = finalUsagePlan(terms, s.startsAt, s.nextInvoiceIndex);
      await this.repo.recordPeriodInvoice(m, this.due(s, final.index, final.period, true));
      this.logger.log({ event: 'subscription_final_usage_due', subscription_id: s.id, period_index: final.index });
    }
    if (action !== 'invoice') {
      s.status = 'CANCELED';
      s.canceledAt = action === 'end' ? endsAt : s.currentPeriodEnd;
      s.nextInvoiceAt = null;
    }
    s.updatedAt = await this.clock.nowFor(scope, m);
    await this.repo.save(m, s);
    await this.events.changed(m, scope, before, s);
    return action !== 'invoice';
  }
}
