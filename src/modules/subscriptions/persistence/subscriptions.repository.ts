import { someOrganizationFull } from '../../../shared/db/fair-batch';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { ClockScope } from '../../../shared/time/clock';
import { CLAIM_UNISSUED_SQL, OPEN_PERIOD_INVOICES_SQL } from './period-batches-sql';
import type { Currency } from '../../../shared/money/currency';
import { Amount, fromDb } from '../../../shared/money/money';
import type { SubscriptionStatus } from '../domain/billing';
import type { IntervalType } from '../domain/periods';
import { dueSubscriptionsSql } from './due-subscriptions-sql';
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
  /** The final usage invoice of an ADVANCE subscription canceled at period end. */
  finalUsage: boolean;
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
   * the pass to one organization's mode (a moved test clock). The batch is fair (shared/db/fair-batch.ts,
   * read by organization: due-subscriptions-sql.ts): at most `cap` of one organization's mode, organizations interleaved,
   * each organization's never-failed subscriptions first (earliest due first), then the least
   * recently failed (`attempted`). Answers the rows locked, the ids picked but held elsewhere (`skipped`:
   * the caller leaves them for a later pass), whether the pick was full (more may be due), and which of
   * those locked had failed before (`retried`: their place in line is given back once they move).
   */
  async lockDue(
    m: EntityManager,
    now: Date,
    cap: number,
    limit: number,
    scope: ClockScope | null,
    exclude: readonly string[] = [],
  ): Promise<{ due: SubscriptionRecord[]; skipped: string[]; full: boolean; retried: Set<string> }> {
    const params: unknown[] = [now, cap, limit, [...exclude]];
    if (scope) params.push(scope.organizationId, scope.mode);
    const picked: Array<{ id: string; organization_id: string; mode: string; attempted_at: Date | null }> = await m.query(
      dueSubscriptionsSql(scope !== null),
      params,
    );
    if (!picked.length) return { due: [], skipped: [], full: false, retried: new Set() };
    const ids = picked.map((p) => p.id);
    const locked = await m
      .createQueryBuilder(SubscriptionRecord, 's')
      .where('s.id IN (:...ids) AND s.next_invoice_at IS NOT NULL AND s.next_invoice_at <= :now', { ids, now })
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    const place = new Map(ids.map((id, i) => [id, i]));
    const held = new Set(locked.map((l) => l.id));
    return {
      due: locked.sort((a, b) => place.get(a.id)! - place.get(b.id)!),
      // Held by another instance, a cancel or usage being recorded (or no longer due, which the next pick shows).
      skipped: ids.filter((id) => !held.has(id)),
      full: picked.length >= limit || someOrganizationFull(picked, cap),
      retried: new Set(picked.filter((p) => p.attempted_at !== null && held.has(p.id)).map((p) => p.id)),
    };
  }

  /** A subscription that failed before and has now moved on: back to its place in its organization's line. */
  async clearAttempted(m: EntityManager, scope: Scope, id: string): Promise<void> {
    await m.query(`UPDATE subscriptions SET attempted_at = NULL WHERE id = $1 AND organization_id = $2 AND mode = $3`, [id, scope.organizationId, scope.mode]);
  }

  /** A due subscription whose period invoice could not be issued now: to the back of its organization's line. */
  async attempted(m: EntityManager, scope: Scope, id: string): Promise<void> {
    await m.query(`UPDATE subscriptions SET attempted_at = now() WHERE id = $1 AND organization_id = $2 AND mode = $3`, [id, scope.organizationId, scope.mode]);
  }

  /** Records a period whose invoice fell due (once: a second record of the same period is ignored). */
  async recordPeriodInvoice(m: EntityManager, record: SubscriptionInvoiceRecord): Promise<void> {
    await m.createQueryBuilder().insert().into(SubscriptionInvoiceRecord).values(record).orIgnore().execute();
  }

  /**
   * Takes up to `limit` periods whose invoice is still to be issued and whose retry is due at `now`
   * (one that failed since `passStart`, the pass's start, waits for the next pass; one recorded since,
   * never tried, is taken) in a fair batch (shared/db/fair-batch.ts: at most `cap` of one organization's mode, organizations in
   * turns, those waiting longest first; a failed one's later retry time puts it at the back), leased
   * until `leaseUntil` so that another instance leaves them alone meanwhile.
   */
  async claimUnissued(m: EntityManager, now: Date, leaseUntil: Date, cap: number, limit: number, passStart: Date = now): Promise<UnissuedPeriod[]> {
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
        final_usage: boolean;
      }>,
      number,
    ] = await m.query(
      // The fair batch is read without locks; the UPDATE re-checks each row's retry time once it holds the row.
      CLAIM_UNISSUED_SQL,
      [now, leaseUntil, limit, cap, passStart],
    );
    return rows.map((r) => ({
      organizationId: r.organization_id,
      mode: r.mode,
      subscriptionId: r.subscription_id,
      periodStart: r.period_start,
      periodEnd: r.period_end,
      periodIndex: r.period_index,
      attempts: r.attempts,
      finalUsage: r.final_usage,
    }));
  }

  /** A period's invoice issued; answers whether no later period of the subscription had one yet. */
  async markIssued(m: EntityManager, scope: Scope, subscriptionId: string, periodStart: Date, invoiceId: string): Promise<boolean> {
    const rows: Array<{ latest: boolean }> = await m.query(
      `WITH issued AS (
         UPDATE subscription_invoices SET invoice_id = $3, attempts = attempts + 1, last_error = NULL, retry_at = NULL
          WHERE subscription_id = $1 AND period_start = $2 AND invoice_id IS NULL AND organization_id = $4 AND mode = $5
          RETURNING period_index)
       SELECT NOT EXISTS (
         SELECT 1 FROM subscription_invoices o, issued
          WHERE o.subscription_id = $1 AND o.organization_id = $4 AND o.mode = $5 AND o.invoice_id IS NOT NULL AND o.period_index > issued.period_index) AS latest
         FROM issued`,
      [subscriptionId, periodStart, invoiceId, scope.organizationId, scope.mode],
    );
    return rows[0]?.latest ?? false;
  }

  /**
   * A final usage invoice with nothing to bill (no usage priced above zero): its row goes, no invoice is
   * made, and no usage is billed after it.
   */
  async dropFinalUsage(m: EntityManager, scope: Scope, subscriptionId: string, periodStart: Date): Promise<boolean> {
    const [, count]: [unknown, number] = await m.query(
      `DELETE FROM subscription_invoices
        WHERE subscription_id = $1 AND period_start = $2 AND final_usage AND invoice_id IS NULL AND organization_id = $3 AND mode = $4`,
      [subscriptionId, periodStart, scope.organizationId, scope.mode],
    );
    return count > 0;
  }

  /** A period's invoice could not be made: tried again from `retryAt`; answers the attempts so far. */
  async markFailed(m: EntityManager, scope: Scope, subscriptionId: string, periodStart: Date, error: string, retryAt: Date): Promise<number> {
    const [rows]: [Array<{ attempts: number }>, number] = await m.query(
      `UPDATE subscription_invoices SET attempts = attempts + 1, last_error = $3, retry_at = $4
        WHERE subscription_id = $1 AND period_start = $2 AND invoice_id IS NULL AND organization_id = $5 AND mode = $6 RETURNING attempts`,
      [subscriptionId, periodStart, error.slice(0, 1000), retryAt, scope.organizationId, scope.mode],
    );
    return rows[0]?.attempts ?? 0;
  }

  /** The decided outcomes of a subscription's periods. */
  async outcomes(m: EntityManager, scope: Scope, subscriptionId: string): Promise<Array<{ index: number; periodStart: Date; outcome: 'paid' | 'unpaid' }>> {
    const rows: Array<{ period_index: number; period_start: Date; outcome: 'paid' | 'unpaid' }> = await m.query(
      `SELECT period_index, period_start, outcome FROM subscription_invoices
        WHERE subscription_id = $1 AND organization_id = $2 AND mode = $3 AND outcome IS NOT NULL`,
      [subscriptionId, scope.organizationId, scope.mode],
    );
    return rows.map((r) => ({ index: r.period_index, periodStart: r.period_start, outcome: r.outcome }));
  }

  /**
   * Period invoices issued and not yet known paid or unpaid, in a fair batch (shared/db/fair-batch.ts): at most `cap` of one
   * organization's mode, organizations in turns, least recently checked first (then oldest). The batch
   * is stamped checked: an invoice still waiting for its payment goes to the back of its
   * organization's line. Outcomes count in period order whatever order they are decided in
   * (domain/billing.ts dunningState).
   */
  async openPeriodInvoices(m: EntityManager, cap: number, limit: number): Promise<OpenPeriodInvoice[]> {
    const rows: Array<{ organization_id: string; mode: Scope['mode']; subscription_id: string; period_start: Date; period_index: number; invoice_id: string }> =
      await m.query(OPEN_PERIOD_INVOICES_SQL, [cap, limit]);
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
  async settle(m: EntityManager, scope: Scope, subscriptionId: string, periodStart: Date, outcome: 'paid' | 'unpaid'): Promise<boolean> {
    const result: [unknown[], number] = await m.query(
      `UPDATE subscription_invoices SET outcome = $3 WHERE subscription_id = $1 AND period_start = $2 AND organization_id = $4 AND mode = $5 AND outcome IS NULL`,
      [subscriptionId, periodStart, outcome, scope.organizationId, scope.mode],
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
