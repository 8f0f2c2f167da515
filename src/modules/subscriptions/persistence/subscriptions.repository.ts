import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { ClockScope } from '../../../shared/time/clock';
import type { Currency } from '../../../shared/money/currency';
import { Amount, fromDb } from '../../../shared/money/money';
import type { SubscriptionStatus } from '../domain/billing';
import type { IntervalType } from '../domain/periods';
import { SubscriptionInvoiceRecord, SubscriptionRecord } from './subscription.record';

export interface SubscriptionFilters {
  status?: SubscriptionStatus[];
  customerEmail?: string;
}

/** A period whose invoice is still to be issued, with its scope. */
export interface UnissuedPeriod {
  organizationId: string;
  mode: Scope['mode'];
  subscriptionId: string;
  periodStart: Date;
  periodEnd: Date;
  periodIndex: number;
  attempts: number;
}

/** A period invoice whose payment is not settled yet, with its scope. */
export interface OpenPeriodInvoice {
  organizationId: string;
  mode: Scope['mode'];
  subscriptionId: string;
  periodStart: Date;
  periodIndex: number;
  invoiceId: string;
}

@Injectable()
export class SubscriptionsRepository {
  async insert(m: EntityManager, record: SubscriptionRecord): Promise<void> {
    await m.insert(SubscriptionRecord, record);
  }

  find(m: EntityManager, scope: Scope, id: string, lock = false): Promise<SubscriptionRecord | null> {
    return m.findOne(SubscriptionRecord, {
      where: { id, organizationId: scope.organizationId, mode: scope.mode },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** Locks the scope's subscriptions of `ids` (in id order, so that two callers never wait on each other in a circle). */
  lockMany(m: EntityManager, scope: Scope, ids: readonly string[]): Promise<SubscriptionRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return m
      .createQueryBuilder(SubscriptionRecord, 's')
      .where('s.id IN (:...ids) AND s.organization_id = :org AND s.mode = :mode', { ids: [...ids], org: scope.organizationId, mode: scope.mode })
      .orderBy('s.id')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Locks one subscription by id alone (the scheduler knows its scope from the row). */
  lockById(m: EntityManager, id: string): Promise<SubscriptionRecord | null> {
    return m.findOne(SubscriptionRecord, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async save(m: EntityManager, record: SubscriptionRecord): Promise<void> {
    const { id, organizationId, mode, ...changes } = record;
    await m.update(SubscriptionRecord, { id, organizationId, mode }, changes);
  }

  async list(
    m: EntityManager,
    scope: Scope,
    filters: SubscriptionFilters,
    limit: number,
    offset: number,
  ): Promise<{ items: SubscriptionRecord[]; total: number }> {
    const qb = m
      .createQueryBuilder(SubscriptionRecord, 's')
      .where('s.organization_id = :org AND s.mode = :mode', { org: scope.organizationId, mode: scope.mode });
    if (filters.status?.length) qb.andWhere('s.status IN (:...status)', { status: filters.status });
    if (filters.customerEmail) qb.andWhere('lower(s.customer_email) = lower(:email)', { email: filters.customerEmail });
    const total = await qb.getCount();
    const items = total > offset ? await qb.orderBy('s.created_at', 'DESC').addOrderBy('s.id', 'DESC').limit(limit).offset(offset).getMany() : [];
    return { items, total };
  }

  /**
   * Subscriptions whose next period invoice is due at `now`, locked; rows another instance holds are
   * skipped (FOR UPDATE SKIP LOCKED), so each is worked on by one instance at a time. `scope` limits
   * the pass to one organization's mode (a moved test clock).
   */
  lockDue(m: EntityManager, now: Date, limit: number, scope: ClockScope | null, exclude: readonly string[] = []): Promise<SubscriptionRecord[]> {
    const qb = m.createQueryBuilder(SubscriptionRecord, 's').where('s.next_invoice_at IS NOT NULL AND s.next_invoice_at <= :now', { now });
    if (exclude.length) qb.andWhere('s.id NOT IN (:...exclude)', { exclude });
    if (scope) qb.andWhere('s.organization_id = :org AND s.mode = :mode', { org: scope.organizationId, mode: scope.mode });
    return qb.orderBy('s.next_invoice_at', 'ASC').limit(limit).setLock('pessimistic_write').setOnLocked('skip_locked').getMany();
  }

  /** Records a period whose invoice fell due (once: a second record of the same period is ignored). */
  async recordPeriodInvoice(m: EntityManager, record: SubscriptionInvoiceRecord): Promise<void> {
    await m.createQueryBuilder().insert().into(SubscriptionInvoiceRecord).values(record).orIgnore().execute();
  }

  /**
   * Takes up to `limit` periods whose invoice is still to be issued and whose retry is due at `now`
   * (those waiting longest first), leased until `leaseUntil` so that another instance leaves them
   * alone meanwhile (rows another instance is taking are skipped).
   */
  async claimUnissued(m: EntityManager, now: Date, leaseUntil: Date, limit: number): Promise<UnissuedPeriod[]> {
    // An UPDATE answers [rows, count].
    const [rows]: [
      Array<{
        organization_id: string;
        mode: Scope['mode'];
        subscription_id: string;
        period_start: Date;
        period_end: Date;
        period_index: number;
        attempts: number;
      }>,
      number,
    ] = await m.query(
      `UPDATE subscription_invoices t SET retry_at = $2
         FROM (SELECT subscription_id, period_start FROM subscription_invoices
                WHERE invoice_id IS NULL AND retry_at <= $1
                ORDER BY retry_at, created_at LIMIT $3 FOR UPDATE SKIP LOCKED) c
        WHERE t.subscription_id = c.subscription_id AND t.period_start = c.period_start
        RETURNING t.organization_id, t.mode, t.subscription_id, t.period_start, t.period_end, t.period_index, t.attempts`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({
      organizationId: r.organization_id,
      mode: r.mode,
      subscriptionId: r.subscription_id,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      periodIndex: r.period_index,
      attempts: r.attempts,
    }));
  }

  /** A period's invoice issued; answers whether no later period of the subscription had one yet. */
  async markIssued(m: EntityManager, subscriptionId: string, periodStart: Date, invoiceId: string): Promise<boolean> {
    const rows: Array<{ latest: boolean }> = await m.query(
      `WITH issued AS (
         UPDATE subscription_invoices SET invoice_id = $3, attempts = attempts + 1, last_error = NULL, retry_at = NULL
          WHERE subscription_id = $1 AND period_start = $2 AND invoice_id IS NULL
          RETURNING period_index)
       SELECT NOT EXISTS (
         SELECT 1 FROM subscription_invoices o, issued
          WHERE o.subscription_id = $1 AND o.invoice_id IS NOT NULL AND o.period_index > issued.period_index) AS latest
         FROM issued`,
      [subscriptionId, periodStart, invoiceId],
    );
    return rows[0]?.latest ?? false;
  }

  /** A period's invoice could not be made: tried again from `retryAt`; answers the attempts so far. */
  async markFailed(m: EntityManager, subscriptionId: string, periodStart: Date, error: string, retryAt: Date): Promise<number> {
    const [rows]: [Array<{ attempts: number }>, number] = await m.query(
      `UPDATE subscription_invoices SET attempts = attempts + 1, last_error = $3, retry_at = $4
        WHERE subscription_id = $1 AND period_start = $2 AND invoice_id IS NULL RETURNING attempts`,
      [subscriptionId, periodStart, error.slice(0, 1000), retryAt],
    );
    return rows[0]?.attempts ?? 0;
  }

  /** The decided outcomes of a subscription's periods. */
  async outcomes(m: EntityManager, subscriptionId: string): Promise<Array<{ index: number; periodStart: Date; outcome: 'paid' | 'unpaid' }>> {
    const rows: Array<{ period_index: number; period_start: Date; outcome: 'paid' | 'unpaid' }> = await m.query(
      `SELECT period_index, period_start, outcome FROM subscription_invoices WHERE subscription_id = $1 AND outcome IS NOT NULL`,
      [subscriptionId],
    );
    return rows.map((r) => ({ index: r.period_index, periodStart: r.period_start, outcome: r.outcome }));
  }

  /** Period invoices issued and not yet known paid or unpaid, oldest first. */
  async openPeriodInvoices(m: EntityManager, limit: number): Promise<OpenPeriodInvoice[]> {
    const rows: Array<{ organization_id: string; mode: Scope['mode']; subscription_id: string; period_start: Date; period_index: number; invoice_id: string }> =
      await m.query(
        `SELECT organization_id, mode, subscription_id, period_start, period_index, invoice_id
           FROM subscription_invoices WHERE outcome IS NULL AND invoice_id IS NOT NULL ORDER BY created_at LIMIT $1`,
        [limit],
      );
    return rows.map((r) => ({
      organizationId: r.organization_id,
      mode: r.mode,
      subscriptionId: r.subscription_id,
      periodStart: r.period_start,
      periodIndex: r.period_index,
      invoiceId: r.invoice_id,
    }));
  }

  /** Marks a period invoice paid or unpaid; false when it already was (another instance settled it). */
  async settle(m: EntityManager, subscriptionId: string, periodStart: Date, outcome: 'paid' | 'unpaid'): Promise<boolean> {
    const result: [unknown[], number] = await m.query(
      `UPDATE subscription_invoices SET outcome = $3 WHERE subscription_id = $1 AND period_start = $2 AND outcome IS NULL`,
      [subscriptionId, periodStart, outcome],
    );
    const affected = result[1];
    return affected > 0;
  }

  /** Counts by status, and the base price x quantity of ACTIVE and PAST_DUE subscriptions by currency and interval. */
  async figures(
    m: EntityManager,
    scope: Scope,
  ): Promise<{
    counts: Partial<Record<SubscriptionStatus, number>>;
    recurring: Array<{ currency: Currency; intervalType: IntervalType; intervalCount: number; amount: Amount }>;
  }> {
    const counts: Array<{ status: SubscriptionStatus; n: number }> = await m.query(
      `SELECT status, count(*)::int AS n FROM subscriptions WHERE organization_id = $1 AND mode = $2 GROUP BY status`,
      [scope.organizationId, scope.mode],
    );
    const recurring: Array<{ currency: Currency; interval_type: IntervalType; interval_count: number; amount: string }> = await m.query(
      `SELECT currency, interval_type, interval_count, sum(base_price * quantity)::text AS amount FROM subscriptions
        WHERE organization_id = $1 AND mode = $2 AND status IN ('ACTIVE', 'PAST_DUE') GROUP BY 1, 2, 3`,
      [scope.organizationId, scope.mode],
    );
    return {
      counts: Object.fromEntries(counts.map((c) => [c.status, c.n])),
      recurring: recurring.map((r) => ({ currency: r.currency, intervalType: r.interval_type, intervalCount: r.interval_count, amount: fromDb(r.amount) })),
    };
  }
}
