import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { DashboardRead } from '../domain/dashboard';
import type { DashboardWindow } from '../domain/period';

/** A day window kept as running totals (analytics_*_windows), as of the anchor day. */
export interface KeptWindow {
  span: number;
  prev: boolean;
}

/** The row analytics_dashboard(...) answers (migrations/analytics/1763701100000-analytics-dashboard-read.ts). */
interface RawDashboard {
  kept: boolean;
  payments: DashboardRead['payments'] | null;
  invoices: DashboardRead['invoices'] | null;
  customers: string | number | null;
  top: DashboardRead['top'] | null;
  new_customers: string | number | null;
  payment_series: string | null;
  invoice_series: string | null;
}

/** "<bucket> <value> <bucket> <value> ...": buckets as epoch seconds, values as the database wrote them. */
function seriesOf<T>(text: string | null, value: (v: string) => T): Array<[number, T]> {
  if (!text) return [];
  const parts = text.split(' ');
  const out: Array<[number, T]> = new Array(parts.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = [Number(parts[2 * i]), value(parts[2 * i + 1])];
  return out;
}

const asText = (v: string) => v;

function readOf(r: RawDashboard): DashboardRead {
  return {
    payments: r.payments ?? [],
    invoices: r.invoices ?? [],
    unique: Number(r.customers ?? 0),
    new: Number(r.new_customers ?? 0),
    top: r.top ?? [],
    paymentSeries: seriesOf(r.payment_series, asText),
    invoiceSeries: seriesOf(r.invoice_series, Number),
  };
}

/**
 * analytics_dashboard_now (migration 1763702000000) folds the organization's appended rollup changes
 * first when it has any, then answers analytics_dashboard(...) (1763701100000) with them included.
 */
const DASHBOARD = `SELECT * FROM analytics_dashboard_now($1, $2, $3, $4, $5, $6, $7, $8)`;

/**
 * Reads the dashboard's rollups (migrations/analytics/1763700700000-analytics-rollups.ts), which triggers keep
 * in step with every write (they append each change; folds add them up, 1763702000000), through
 * analytics_dashboard_now(...): one statement, so one snapshot for every section and one round trip,
 * planned once per connection. Nothing here reads the payments or invoices tables. Every read is
 * scoped by organization_id and mode.
 */
@Injectable()
export class AnalyticsRepository {
  /** A day window from its kept totals; null when they do not end on `today` (YYYY-MM-DD, UTC) yet. */
  async keptDashboard(m: EntityManager, scope: Scope, w: DashboardWindow, kept: KeptWindow, today: string): Promise<DashboardRead | null> {
    const rows: RawDashboard[] = await m.query(DASHBOARD, [scope.organizationId, scope.mode, w.grain, w.from, w.to, kept.span, kept.prev, today]);
    return rows[0].kept ? readOf(rows[0]) : null;
  }

  /** Any window summed from its buckets (hourly periods: at most 24 buckets per key). */
  async summedDashboard(m: EntityManager, scope: Scope, w: DashboardWindow): Promise<DashboardRead> {
    const rows: RawDashboard[] = await m.query(DASHBOARD, [scope.organizationId, scope.mode, w.grain, w.from, w.to, null, null, null]);
    return readOf(rows[0]);
  }

  /** Moves (or builds) the kept windows to end on `today` (YYYY-MM-DD, UTC); see the migration. */
  async rollWindows(m: EntityManager, scope: Scope, today: string): Promise<void> {
    await m.query(`SELECT analytics_roll_windows($1, $2, $3::date)`, [scope.organizationId, scope.mode, today]);
  }
}
