import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { DashboardRead } from '../domain/dashboard';
import { TOP_CUSTOMERS } from '../domain/dashboard';
import type { DashboardWindow } from '../domain/period';

/** A day window kept as running totals (analytics_*_windows), as of the anchor day. */
export interface KeptWindow {
  span: number;
  prev: boolean;
}

/** One row of the dashboard statement: every section as compact JSON arrays (see DashboardRead). */
interface RawDashboard {
  kept?: boolean;
  payments: DashboardRead['payments'] | null;
  invoices: DashboardRead['invoices'] | null;
  unique_count: string | null;
  top: DashboardRead['top'] | null;
  new_count: string | null;
  payment_series: DashboardRead['paymentSeries'] | null;
  invoice_series: DashboardRead['invoiceSeries'] | null;
}

const SCOPED = 'organization_id = $1 AND mode = $2';
/** The series rows and first invoices of the window's buckets ($3 grain, $4 from, $5 to). */
const IN_WINDOW = `${SCOPED} AND grain = $3 AND bucket >= $4 AND bucket < $5`;

/**
 * The parts every dashboard statement shares: new customers (first invoices in the window) and the
 * series, one row per bucket that has any. Buckets travel as epoch seconds and money as the text
 * of a numeric(78,30) column, which already has the 30 fractional digits the response shows.
 */
const SERIES_AND_NEW = `
  (SELECT sum(customers_count) FROM analytics_first_invoice_series WHERE ${IN_WINDOW})::text AS new_count,
  (SELECT json_agg(json_build_array(extract(epoch FROM bucket)::bigint, volume_usd::text))
     FROM analytics_payment_series WHERE ${IN_WINDOW}) AS payment_series,
  (SELECT json_agg(json_build_array(extract(epoch FROM bucket)::bigint, invoices_count))
     FROM analytics_invoice_series WHERE ${IN_WINDOW}) AS invoice_series`;

/**
 * A day window from its kept running totals ($6 span, $7 prev), valid when they end on $8 (today):
 * about 60 payment rows, 6 invoice rows, the kept number of customers, the top customers through an
 * index, and one series row per day. `kept` says whether the totals end on today; when they do not
 * the other columns are not to be used.
 */
const KEPT_SQL = `
  SELECT
    EXISTS (SELECT FROM analytics_window_anchors WHERE ${SCOPED} AND anchor_day = $8::date) AS kept,
    (SELECT json_agg(json_build_array(provider_id, currency, status, payments_count, volume_usd::text))
       FROM analytics_payment_windows WHERE ${SCOPED} AND span = $6 AND prev = $7 AND payments_count <> 0) AS payments,
    (SELECT json_agg(json_build_array(status, invoices_count, price_usd_sum::text))
       FROM analytics_invoice_windows WHERE ${SCOPED} AND span = $6 AND prev = $7 AND invoices_count <> 0) AS invoices,
    (SELECT customers_count FROM analytics_window_customers WHERE ${SCOPED} AND span = $6 AND prev = $7)::text AS unique_count,
    (SELECT json_agg(json_build_array(e, n, v::text) ORDER BY v DESC, n DESC, e)
       FROM (SELECT customer_email AS e, invoices_count AS n, paid_volume_usd AS v FROM analytics_customer_windows
              WHERE ${SCOPED} AND span = $6 AND prev = $7 AND paid_volume_usd > 0
              ORDER BY paid_volume_usd DESC, invoices_count DESC, customer_email LIMIT ${TOP_CUSTOMERS}) t) AS top,
    ${SERIES_AND_NEW}`;

/**
 * Any window summed from its buckets: the hourly periods (at most 24 buckets per key), and a day
 * window whose kept totals could not be moved to today. Unique customers are counted over the
 * window's customer buckets.
 */
const SUMMED_SQL = `
  WITH cust AS MATERIALIZED (
    SELECT customer_email AS e, sum(invoices_count) AS n, sum(paid_volume_usd) AS v FROM analytics_customer_buckets
     WHERE ${IN_WINDOW}
     GROUP BY customer_email HAVING sum(invoices_count) <> 0
  )
  SELECT
    (SELECT json_agg(json_build_array(provider_id, currency, status, n, v::text)) FROM (
       SELECT provider_id, currency, status, sum(payments_count) AS n, sum(volume_usd) AS v FROM analytics_payment_buckets
        WHERE ${IN_WINDOW}
        GROUP BY provider_id, currency, status HAVING sum(payments_count) <> 0) p) AS payments,
    (SELECT json_agg(json_build_array(status, n, v::text)) FROM (
       SELECT status, sum(invoices_count) AS n, sum(price_usd_sum) AS v FROM analytics_invoice_buckets
        WHERE ${IN_WINDOW}
        GROUP BY status HAVING sum(invoices_count) <> 0) i) AS invoices,
    (SELECT count(*) FROM cust)::text AS unique_count,
    (SELECT json_agg(json_build_array(e, n, v::text) ORDER BY v DESC, n DESC, e)
       FROM (SELECT e, n, v FROM cust WHERE v > 0 ORDER BY v DESC, n DESC, e LIMIT ${TOP_CUSTOMERS}) t) AS top,
    ${SERIES_AND_NEW}`;

function readOf(r: RawDashboard): DashboardRead {
  return {
    payments: r.payments ?? [],
    invoices: r.invoices ?? [],
    unique: r.unique_count === null ? 0 : Number.parseInt(r.unique_count, 10),
    new: r.new_count === null ? 0 : Number.parseInt(r.new_count, 10),
    top: r.top ?? [],
    paymentSeries: r.payment_series ?? [],
    invoiceSeries: r.invoice_series ?? [],
  };
}

/**
 * Reads the dashboard's rollups (migrations/1763700700000-analytics-rollups.ts and
 * 1763701000000-analytics-window-customers.ts), which triggers keep in step with every write.
 * Nothing here reads the payments or invoices tables. Each read is one statement: one snapshot for
 * every section, one round trip. Every statement filters by organization_id and mode first.
 */
@Injectable()
export class AnalyticsRepository {
  /** A day window from its kept totals; null when they do not end on `today` (YYYY-MM-DD, UTC) yet. */
  async keptDashboard(m: EntityManager, scope: Scope, w: DashboardWindow, kept: KeptWindow, today: string): Promise<DashboardRead | null> {
    const rows: RawDashboard[] = await m.query(KEPT_SQL, [scope.organizationId, scope.mode, w.grain, w.from, w.to, kept.span, kept.prev, today]);
    return rows[0].kept ? readOf(rows[0]) : null;
  }

  /** Any window summed from its buckets. */
  async summedDashboard(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<DashboardRead> {
    const rows: RawDashboard[] = await m.query(SUMMED_SQL, [scope.organizationId, scope.mode, w.grain, w.from, w.to]);
    return readOf(rows[0]);
  }

  /** Moves (or builds) the kept windows to end on `today` (YYYY-MM-DD, UTC); see the migration. */
  async rollWindows(m: EntityManager, scope: Scope, today: string): Promise<void> {
    await m.query(`SELECT analytics_roll_windows($1, $2, $3::date)`, [scope.organizationId, scope.mode, today]);
  }
}
