import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { fromDb } from '../../../shared/money/money';
import type { CustomerFigures, InvoiceCell, PaymentCell, SeriesCell } from '../domain/dashboard';
import { TOP_CUSTOMERS } from '../domain/dashboard';
import type { DashboardWindow } from '../domain/period';

/** A day window kept as running totals (analytics_*_windows), as of the anchor day. */
export interface KeptWindow {
  span: number;
  prev: boolean;
}

/**
 * Reads the dashboard's rollups (migrations/1763700700000-analytics-rollups.ts), which triggers on
 * payments and invoices keep in step with every write. Nothing here reads the payments or
 * invoices tables. Day windows read their kept running totals (one row per provider, currency and
 * status; per status; per customer) and the daily buckets for the series; hour windows sum at most
 * 24 hourly buckets per key.
 * Every statement filters by organization_id and mode first.
 */
@Injectable()
export class AnalyticsRepository {
  private params(scope: Scope, w: DashboardWindow): unknown[] {
    return [scope.organizationId, scope.mode, w.grain, w.from, w.to];
  }

  /** The day the organization's kept windows end on (null: not built). */
  async anchorDay(m: EntityManager, scope: Scope): Promise<string | null> {
    const rows: Array<{ day: string | null }> = await m.query(
      `SELECT to_char(anchor_day, 'YYYY-MM-DD') AS day FROM analytics_window_anchors WHERE organization_id = $1 AND mode = $2`,
      [scope.organizationId, scope.mode],
    );
    return rows[0]?.day ?? null;
  }

  /** Moves (or builds) the kept windows to end on `today` (YYYY-MM-DD, UTC); see the migration. */
  async rollWindows(m: EntityManager, scope: Scope, today: string): Promise<void> {
    await m.query(`SELECT analytics_roll_windows($1, $2, $3::date)`, [scope.organizationId, scope.mode, today]);
  }

  async keptPayments(m: EntityManager, scope: Scope, k: KeptWindow): Promise<PaymentCell[]> {
    const rows: Array<{ provider_id: string; currency: string; status: string; n: string; volume: string }> = await m.query(
      `SELECT provider_id, currency, status, payments_count::text AS n, volume_usd::text AS volume FROM analytics_payment_windows
        WHERE organization_id = $1 AND mode = $2 AND span = $3 AND prev = $4 AND payments_count <> 0`,
      [scope.organizationId, scope.mode, k.span, k.prev],
    );
    return rows.map((r) => ({ providerId: r.provider_id, currency: r.currency, status: r.status, count: Number.parseInt(r.n, 10), volumeUsd: fromDb(r.volume) }));
  }

  async keptInvoices(m: EntityManager, scope: Scope, k: KeptWindow): Promise<InvoiceCell[]> {
    const rows: Array<{ status: string; n: string; total: string }> = await m.query(
      `SELECT status, invoices_count::text AS n, price_usd_sum::text AS total FROM analytics_invoice_windows
        WHERE organization_id = $1 AND mode = $2 AND span = $3 AND prev = $4 AND invoices_count <> 0`,
      [scope.organizationId, scope.mode, k.span, k.prev],
    );
    return rows.map((r) => ({ status: r.status, count: Number.parseInt(r.n, 10), priceUsdSum: fromDb(r.total) }));
  }

  async keptCustomers(m: EntityManager, scope: Scope, k: KeptWindow, w: DashboardWindow): Promise<CustomerFigures> {
    const params = [scope.organizationId, scope.mode, k.span, k.prev];
    const unique: Array<{ n: string }> = await m.query(
      `SELECT count(*)::text AS n FROM analytics_customer_windows
        WHERE organization_id = $1 AND mode = $2 AND span = $3 AND prev = $4 AND invoices_count > 0`,
      params,
    );
    const top: Array<{ email: string; n: string; volume: string }> = await m.query(
      `SELECT customer_email AS email, invoices_count::text AS n, paid_volume_usd::text AS volume FROM analytics_customer_windows
        WHERE organization_id = $1 AND mode = $2 AND span = $3 AND prev = $4 AND paid_volume_usd > 0
        ORDER BY analytics_customer_windows.paid_volume_usd DESC, analytics_customer_windows.invoices_count DESC,
                 analytics_customer_windows.customer_email ASC
        LIMIT ${TOP_CUSTOMERS}`,
      params,
    );
    return {
      unique: Number.parseInt(unique[0].n, 10),
      new: await this.newCustomers(m, scope, w),
      top: top.map((r) => ({ email: r.email, invoicesCount: Number.parseInt(r.n, 10), paidVolumeUsd: fromDb(r.volume) })),
    };
  }

  private async newCustomers(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<number> {
    const fresh: Array<{ n: string }> = await m.query(
      `SELECT coalesce(sum(customers_count), 0)::text AS n FROM analytics_first_invoice_series
        WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5`,
      this.params(scope, w),
    );
    return Number.parseInt(fresh[0].n, 10);
  }

  async payments(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<PaymentCell[]> {
    const rows: Array<{ provider_id: string; currency: string; status: string; n: string; volume: string }> = await m.query(
      `SELECT provider_id, currency, status, sum(payments_count)::text AS n, sum(volume_usd)::text AS volume
         FROM analytics_payment_buckets
        WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5
        GROUP BY provider_id, currency, status
       HAVING sum(payments_count) <> 0`,
      this.params(scope, w),
    );
    return rows.map((r) => ({ providerId: r.provider_id, currency: r.currency, status: r.status, count: Number.parseInt(r.n, 10), volumeUsd: fromDb(r.volume) }));
  }

  async invoices(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<InvoiceCell[]> {
    const rows: Array<{ status: string; n: string; total: string }> = await m.query(
      `SELECT status, sum(invoices_count)::text AS n, sum(price_usd_sum)::text AS total
         FROM analytics_invoice_buckets
        WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5
        GROUP BY status
       HAVING sum(invoices_count) <> 0`,
      this.params(scope, w),
    );
    return rows.map((r) => ({ status: r.status, count: Number.parseInt(r.n, 10), priceUsdSum: fromDb(r.total) }));
  }

  /** Per bucket: COMPLETED payments' USD volume and the number of invoices created. */
  async series(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<SeriesCell[]> {
    const rows: Array<{ bucket: Date; volume: string; n: string }> = await m.query(
      `SELECT coalesce(p.bucket, i.bucket) AS bucket, coalesce(p.volume_usd, 0)::text AS volume, coalesce(i.invoices_count, 0)::text AS n
         FROM (SELECT bucket, volume_usd FROM analytics_payment_series
                WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5) p
         FULL JOIN (SELECT bucket, invoices_count FROM analytics_invoice_series
                     WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5) i ON i.bucket = p.bucket`,
      this.params(scope, w),
    );
    return rows.map((r) => ({ bucket: new Date(r.bucket), paymentsVolumeUsd: fromDb(r.volume), invoicesCount: Number.parseInt(r.n, 10) }));
  }

  /**
   * Distinct customer emails with an invoice in the window, those whose first invoice ever is in
   * it, and the top customers by the USD value of their window invoices that are COMPLETED.
   */
  async customers(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<CustomerFigures> {
    const params = this.params(scope, w);
    const rows: Array<{ email: string | null; n: string | null; volume: string | null; unique_count: string }> = await m.query(
      `WITH per AS MATERIALIZED (
         SELECT customer_email, sum(invoices_count) AS n, sum(paid_volume_usd) AS volume
           FROM analytics_customer_buckets
          WHERE organization_id = $1 AND mode = $2 AND grain = $3 AND bucket >= $4 AND bucket < $5
          GROUP BY customer_email
         HAVING sum(invoices_count) <> 0
       ), top AS (
         SELECT customer_email, n, volume FROM per WHERE volume > 0
          ORDER BY volume DESC, n DESC, customer_email ASC LIMIT ${TOP_CUSTOMERS}
       )
       SELECT u.unique_count::text AS unique_count, t.customer_email AS email, t.n::text AS n, t.volume::text AS volume
         FROM (SELECT count(*) AS unique_count FROM per) u LEFT JOIN top t ON true
        ORDER BY t.volume DESC, t.n DESC, t.customer_email ASC`,
      params,
    );
    return {
      unique: Number.parseInt(rows[0]?.unique_count ?? '0', 10),
      new: await this.newCustomers(m, scope, w),
      top: rows.filter((r) => r.email !== null).map((r) => ({ email: r.email!, invoicesCount: Number.parseInt(r.n!, 10), paidVolumeUsd: fromDb(r.volume!) })),
    };
  }
}
