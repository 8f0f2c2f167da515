import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { fromDb } from '../../../shared/money/money';
import type { CustomerFigures, InvoiceCell, PaymentCell, SeriesCell } from '../domain/dashboard';
import { TOP_CUSTOMERS } from '../domain/dashboard';
import type { DashboardWindow } from '../domain/period';

interface RawPayment { p: string; c: string; s: string; n: string; v: string }
interface RawInvoice { s: string; n: string; v: string }
interface RawPoint { b: string; v: string; n: string }
interface RawCustomer { e: string; n: string; v: string }

export interface DashboardData {
  payments: PaymentCell[];
  invoices: InvoiceCell[];
  series: SeriesCell[];
  customers: CustomerFigures;
}

/** A day window kept as running totals (analytics_*_windows), as of the anchor day. */
export interface KeptWindow {
  span: number;
  prev: boolean;
}

/**
 * Reads the dashboard's rollups (migrations/1763700700000-analytics-rollups.ts), which triggers on
 * payments and invoices keep in step with every write. Nothing here reads the payments or
 * invoices tables. Day windows read their kept running totals (one row per provider, currency and
 * status; per status; per customer) and one series row per day; hour windows sum at most 24 hourly
 * buckets per key.
 * Every statement filters by organization_id and mode first.
 */
@Injectable()
export class AnalyticsRepository {
  /**
   * Every section of the dashboard in one statement, so one snapshot and one round trip. Day
   * periods read their kept totals when those end on `today`; otherwise (hour periods, or windows
   * not moved to today yet) the buckets of the window are summed.
   */
  async dashboard(m: EntityManager, scope: Scope, w: DashboardWindow, kept: KeptWindow | null, today: string): Promise<DashboardData> {
    const params = [scope.organizationId, scope.mode, w.grain, w.from, w.to, kept?.span ?? null, kept?.prev ?? null, today];
    const scoped = 'organization_id = $1 AND mode = $2';
    const inWindow = `${scoped} AND grain = $3 AND bucket >= $4 AND bucket < $5`;
    const inKept = `${scoped} AND span = $6 AND prev = $7`;
    const useKept = '(SELECT kept FROM anchor)';
    const rows: Array<{ payments: RawPayment[]; invoices: RawInvoice[]; series: RawPoint[]; unique_count: string; top: RawCustomer[]; new_count: string }> = await m.query(
      `WITH anchor AS (
         SELECT $6::integer IS NOT NULL
                AND EXISTS (SELECT 1 FROM analytics_window_anchors WHERE ${scoped} AND anchor_day = $8::date) AS kept
       ), pay AS (
         SELECT provider_id, currency, status, payments_count AS n, volume_usd AS v FROM analytics_payment_windows
          WHERE ${useKept} AND ${inKept} AND payments_count <> 0
         UNION ALL
         SELECT provider_id, currency, status, sum(payments_count), sum(volume_usd) FROM analytics_payment_buckets
          WHERE NOT ${useKept} AND ${inWindow}
          GROUP BY provider_id, currency, status HAVING sum(payments_count) <> 0
       ), inv AS (
         SELECT status, invoices_count AS n, price_usd_sum AS v FROM analytics_invoice_windows
          WHERE ${useKept} AND ${inKept} AND invoices_count <> 0
         UNION ALL
         SELECT status, sum(invoices_count), sum(price_usd_sum) FROM analytics_invoice_buckets
          WHERE NOT ${useKept} AND ${inWindow}
          GROUP BY status HAVING sum(invoices_count) <> 0
       ), cust AS MATERIALIZED (
         SELECT customer_email AS e, invoices_count AS n, paid_volume_usd AS v FROM analytics_customer_windows
          WHERE ${useKept} AND ${inKept} AND invoices_count > 0
         UNION ALL
         SELECT customer_email, sum(invoices_count), sum(paid_volume_usd) FROM analytics_customer_buckets
          WHERE NOT ${useKept} AND ${inWindow}
          GROUP BY customer_email HAVING sum(invoices_count) <> 0
       ), top AS (
         (SELECT customer_email AS e, invoices_count AS n, paid_volume_usd AS v FROM analytics_customer_windows
           WHERE ${useKept} AND ${inKept} AND paid_volume_usd > 0
           ORDER BY analytics_customer_windows.paid_volume_usd DESC, analytics_customer_windows.invoices_count DESC,
                    analytics_customer_windows.customer_email ASC
           LIMIT ${TOP_CUSTOMERS})
         UNION ALL
         (SELECT e, n, v FROM cust WHERE NOT ${useKept} AND v > 0 ORDER BY v DESC, n DESC, e ASC LIMIT ${TOP_CUSTOMERS})
       )
       SELECT
         (SELECT coalesce(json_agg(json_build_object('p', provider_id, 'c', currency, 's', status, 'n', n::text, 'v', v::text)), '[]'::json) FROM pay) AS payments,
         (SELECT coalesce(json_agg(json_build_object('s', status, 'n', n::text, 'v', v::text)), '[]'::json) FROM inv) AS invoices,
         (SELECT coalesce(json_agg(json_build_object('b', (extract(epoch FROM coalesce(p.bucket, i.bucket)) * 1000)::bigint::text,
                                                     'v', coalesce(p.volume_usd, 0)::text, 'n', coalesce(i.invoices_count, 0)::text)), '[]'::json)
            FROM (SELECT bucket, volume_usd FROM analytics_payment_series WHERE ${inWindow}) p
            FULL JOIN (SELECT bucket, invoices_count FROM analytics_invoice_series WHERE ${inWindow}) i ON i.bucket = p.bucket) AS series,
         CASE WHEN ${useKept}
              THEN (SELECT count(*) FROM analytics_customer_windows WHERE ${inKept} AND invoices_count > 0)
              ELSE (SELECT count(*) FROM cust) END::text AS unique_count,
         (SELECT coalesce(json_agg(json_build_object('e', e, 'n', n::text, 'v', v::text) ORDER BY v DESC, n DESC, e ASC), '[]'::json) FROM top) AS top,
         (SELECT coalesce(sum(customers_count), 0) FROM analytics_first_invoice_series WHERE ${inWindow})::text AS new_count`,
      params,
    );
    const r = rows[0];
    return {
      payments: r.payments.map((x) => ({ providerId: x.p, currency: x.c, status: x.s, count: Number.parseInt(x.n, 10), volumeUsd: fromDb(x.v) })),
      invoices: r.invoices.map((x) => ({ status: x.s, count: Number.parseInt(x.n, 10), priceUsdSum: fromDb(x.v) })),
      series: r.series.map((x) => ({ bucket: new Date(Number.parseInt(x.b, 10)), paymentsVolumeUsd: fromDb(x.v), invoicesCount: Number.parseInt(x.n, 10) })),
      customers: {
        unique: Number.parseInt(r.unique_count, 10),
        new: Number.parseInt(r.new_count, 10),
        top: r.top.map((x) => ({ email: x.e, invoicesCount: Number.parseInt(x.n, 10), paidVolumeUsd: fromDb(x.v) })),
      },
    };
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
}
