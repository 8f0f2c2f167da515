import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { EventOutbox } from '../../../shared/events/outbox';
import { formatTimestamp } from '../../../shared/time/time';
import { subscriptionView, SubscriptionView } from '../dto/subscription.view';
import type { SubscriptionRecord } from '../persistence/subscription.record';
import { SUBSCRIPTION_EVENTS, SUBSCRIPTION_INVOICE_FAILURE_EVENTS } from '../events/subscription.events';

/**
 * Records the subscriptions' events in the writer's transaction (webhooks deliver them from the
 * outbox): `subscription.created`; `subscription.updated` with the changed fields' earlier values
 * (a new period, a status change, a cancellation requested for the period's end); and
 * `subscription.canceled` when it reaches CANCELED; `subscription.invoice_failed` when a period's
 * invoice could not be issued.
 */
@Injectable()
export class SubscriptionEvents {
  constructor(@Inject(EventOutbox) private readonly outbox: EventOutbox) {}

  async created(m: EntityManager, scope: Scope, record: SubscriptionRecord): Promise<void> {
    await this.outbox.record(m, scope, SUBSCRIPTION_EVENTS['subscription.created'], subscriptionView(record));
  }

  /** `subscription.invoice_failed`: period `period` of the subscription could not be invoiced. */
  async invoiceFailed(
    m: EntityManager,
    scope: Scope,
    record: SubscriptionRecord,
    period: { start: Date; end: Date },
    error: string,
    attempts: number,
  ): Promise<void> {
    await this.outbox.record(m, scope, SUBSCRIPTION_INVOICE_FAILURE_EVENTS['subscription.invoice_failed'], {
      subscription_id: record.id,
      period_start: formatTimestamp(period.start),
      period_end: formatTimestamp(period.end),
      error,
      attempts,
      subscription: subscriptionView(record),
    });
  }

  async changed(m: EntityManager, scope: Scope, before: SubscriptionView, after: SubscriptionRecord): Promise<void> {
    const view = subscriptionView(after);
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(before)) {
      if (JSON.stringify(value) !== JSON.stringify((view as unknown as Record<string, unknown>)[key])) previous[key] = value;
    }
    if (Object.keys(previous).length === 0) return;
    await this.outbox.record(m, scope, SUBSCRIPTION_EVENTS['subscription.updated'], view, { previousAttributes: previous });
    if (view.status === 'CANCELED' && before.status !== 'CANCELED') {
      await this.outbox.record(m, scope, SUBSCRIPTION_EVENTS['subscription.canceled'], view, { previousAttributes: previous });
    }
  }
}
