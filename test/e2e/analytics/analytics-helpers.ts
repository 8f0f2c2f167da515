import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { Api } from '../../support/api';
import { testDatabaseUrl } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { withClient } from '../../support/pg';

export { D, r30, ZERO30 } from '../../support/money';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export async function dashboard(api: Api, period: string): Promise<any> {
  return expectSuccess(await api.post('/analytics/dashboard', { period }), 200);
}

export const startOfHour = (t: number) => Math.floor(t / HOUR) * HOUR;
export const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;
export const ts = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', ' ');
export const dayLabel = (t: number) => new Date(t).toISOString().slice(0, 10);
export const hourLabel = (t: number) => `${new Date(t).toISOString().slice(0, 13).replace('T', ' ')}:00:00`;

/**
 * The windows are aligned to hours and days, so a test that places rows relative to them must not
 * straddle an hour boundary: wait until the clock is at least 90 s away from the next hour.
 */
/**
 * The timeout of a hook that calls awayFromHourBoundary: its wait (up to 91 s) plus a minute for the rest
 * of the hook. Jest's default of 60 s is shorter than the wait itself, which failed every test of a file
 * started in the last minute and a half of an hour.
 */
export const HOUR_BOUNDARY_HOOK_TIMEOUT = 155_000;

export async function awayFromHourBoundary(): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 90_000) await new Promise((r) => setTimeout(r, left + 1000));
}

export function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  return withClient(testDatabaseUrl(), async (c: Client) => (await c.query(text, params)).rows as T[]);
}

/*
 * Seeding rows at chosen times. The service takes invoices' created_at from its own clock (the real
 * time), so a data set spread over days and years cannot be made through the API. The rollups the
 * dashboard reads are kept by database triggers on the payments and invoices tables, the very same
 * triggers that run when the API writes: an INSERT here goes through the same maintenance path as
 * a payment recorded by a provider. (The e2e tests beside this one also check the API write path
 * itself: invoice creation and payment status changes.)
 */
export interface SeedInvoice {
  org: string;
  mode?: 'test' | 'live';
  at: number;
  status: string;
  priceUsd: string;
  email: string | null;
}

export async function seedInvoice(i: SeedInvoice): Promise<string> {
  const id = `invoice_${randomUUID()}`;
  await sql(
    `INSERT INTO invoices (id, organization_id, mode, status, currency, price, price_usd, customer_email, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'USD', $5::numeric, $5::numeric, $6, $7, $7)`,
    [id, i.org, i.mode ?? 'test', i.status, i.priceUsd, i.email, new Date(i.at)],
  );
  return id;
}

export interface SeedPayment {
  org: string;
  mode?: 'test' | 'live';
  invoiceId: string;
  at: number;
  providerId: string;
  currency: string;
  status: string;
  priceUsd: string;
}

export async function seedPayment(p: SeedPayment): Promise<string> {
  const id = `payment_${randomUUID()}`;
  await sql(
    `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id, status,
                           happened_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $7::numeric, 'rates_bundled_20261120', $8, $9, $9, $9)`,
    [id, p.org, p.mode ?? 'test', p.providerId, p.invoiceId, p.currency, p.priceUsd, p.status, new Date(p.at)],
  );
  return id;
}

/**
 * Folds the organization's appended rollup changes (both modes) into its rollup rows, as the
 * service's folder does: in batches (here of two changes per table, so that any sequence of changes
 * is also folded across several batches).
 */
export async function foldRollups(org: string): Promise<void> {
  for (const mode of ['live', 'test']) {
    while (Number((await sql(`SELECT analytics_fold($1, $2, 2) AS n`, [org, mode]))[0].n) > 0) {
      // next batch
    }
  }
}

/**
 * The rollups of one organization, as stored (zero rows left out), in a stable order, once the
 * changes its writers appended are folded in (the dashboard folds them the same way before it reads).
 */
export async function storedRollups(org: string): Promise<Record<string, unknown[]>> {
  await foldRollups(org);
  return {
    payments: await sql(
      `SELECT mode, grain, bucket, provider_id, currency, status, payments_count::int AS n, volume_usd::text AS v
                           FROM analytics_payment_buckets WHERE organization_id = $1 AND payments_count <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
      [org],
    ),
    invoices: await sql(
      `SELECT mode, grain, bucket, status, invoices_count::int AS n, price_usd_sum::text AS v
                           FROM analytics_invoice_buckets WHERE organization_id = $1 AND invoices_count <> 0 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    customers: await sql(
      `SELECT mode, grain, bucket, customer_email, invoices_count::int AS n, paid_count::int AS p, paid_volume_usd::text AS v
                            FROM analytics_customer_buckets WHERE organization_id = $1 AND invoices_count <> 0 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    first: await sql(`SELECT mode, customer_email, first_invoice_at FROM analytics_customers WHERE organization_id = $1 ORDER BY 1, 2`, [org]),
    firstSeries: await sql(
      `SELECT mode, grain, bucket, customers_count::int AS n FROM analytics_first_invoice_series
                              WHERE organization_id = $1 AND customers_count <> 0 ORDER BY 1, 2, 3`,
      [org],
    ),
    paymentSeries: await sql(
      `SELECT mode, grain, bucket, completed_count::int AS n, volume_usd::text AS v FROM analytics_payment_series
                                WHERE organization_id = $1 AND completed_count <> 0 ORDER BY 1, 2, 3`,
      [org],
    ),
    invoiceSeries: await sql(
      `SELECT mode, grain, bucket, invoices_count::int AS n FROM analytics_invoice_series
                                WHERE organization_id = $1 AND invoices_count <> 0 ORDER BY 1, 2, 3`,
      [org],
    ),
    paymentWindows: await sql(
      `SELECT mode, span, prev, provider_id, currency, status, payments_count::int AS n, volume_usd::text AS v
                                 FROM analytics_payment_windows WHERE organization_id = $1 AND payments_count <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
      [org],
    ),
    invoiceWindows: await sql(
      `SELECT mode, span, prev, status, invoices_count::int AS n, price_usd_sum::text AS v
                                 FROM analytics_invoice_windows WHERE organization_id = $1 AND invoices_count <> 0 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    customerWindows: await sql(
      `SELECT mode, span, prev, customer_email, invoices_count::int AS n, paid_count::int AS p, paid_volume_usd::text AS v
                                  FROM analytics_customer_windows WHERE organization_id = $1 AND invoices_count <> 0 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    windowCustomers: await sql(
      `SELECT mode, span, prev, customers_count::int AS n
                                  FROM analytics_window_customers WHERE organization_id = $1 AND customers_count <> 0 ORDER BY 1, 2, 3`,
      [org],
    ),
  };
}

/**
 * The kept day windows of an organization recomputed from the raw rows, for the anchor day it has
 * (window N as of day a: the days a-N+1..a; its prev: a-2N+1..a-N).
 */
const WINDOWS = `(SELECT a.mode, s.span, p.prev, a.anchor_day AS day
                    FROM analytics_window_anchors a CROSS JOIN (VALUES (7), (30), (90), (365)) s(span) CROSS JOIN (VALUES (false), (true)) p(prev)
                   WHERE a.organization_id = $1 AND a.anchor_day IS NOT NULL)`;
const IN_WINDOW = (col: string) => `(${col} AT TIME ZONE 'UTC')::date
  BETWEEN w.day - (CASE WHEN w.prev THEN 2 ELSE 1 END) * w.span + 1 AND w.day - (CASE WHEN w.prev THEN w.span ELSE 0 END)`;

/** The same figures recomputed from scratch from the raw payments and invoices. */
export async function recomputedRollups(org: string): Promise<Record<string, unknown[]>> {
  const grains = `(VALUES ('day'), ('hour')) g(grain)`;
  return {
    payments: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, happened_at, 'UTC') AS bucket, provider_id, currency, status,
                                count(*)::int AS n, sum(price_usd)::text AS v
                           FROM payments CROSS JOIN ${grains} WHERE organization_id = $1
                          GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      [org],
    ),
    invoices: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, created_at, 'UTC') AS bucket, status, count(*)::int AS n, sum(price_usd)::text AS v
                           FROM invoices CROSS JOIN ${grains} WHERE organization_id = $1
                          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    customers: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, created_at, 'UTC') AS bucket, lower(customer_email) AS customer_email,
                                 count(*)::int AS n, count(*) FILTER (WHERE status = 'COMPLETED')::int AS p,
                                 coalesce(sum(price_usd) FILTER (WHERE status = 'COMPLETED'), 0)::numeric(78,30)::text AS v
                            FROM invoices CROSS JOIN ${grains} WHERE organization_id = $1 AND customer_email IS NOT NULL
                           GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    first: await sql(
      `SELECT mode, lower(customer_email) AS customer_email, min(created_at) AS first_invoice_at
                        FROM invoices WHERE organization_id = $1 AND customer_email IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
      [org],
    ),
    firstSeries: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, first_at, 'UTC') AS bucket, count(*)::int AS n
                              FROM (SELECT mode, min(created_at) AS first_at FROM invoices WHERE organization_id = $1 AND customer_email IS NOT NULL
                                     GROUP BY mode, lower(customer_email)) f CROSS JOIN ${grains}
                             GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [org],
    ),
    paymentSeries: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, happened_at, 'UTC') AS bucket, count(*)::int AS n, sum(price_usd)::text AS v
                                FROM payments CROSS JOIN ${grains} WHERE organization_id = $1 AND status = 'COMPLETED'
                               GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [org],
    ),
    invoiceSeries: await sql(
      `SELECT mode, g.grain, date_trunc(g.grain, created_at, 'UTC') AS bucket, count(*)::int AS n
                                FROM invoices CROSS JOIN ${grains} WHERE organization_id = $1
                               GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [org],
    ),
    paymentWindows: await sql(
      `SELECT w.mode, w.span, w.prev, x.provider_id, x.currency, x.status, count(*)::int AS n, sum(x.price_usd)::text AS v
                                 FROM ${WINDOWS} w JOIN payments x ON x.organization_id = $1 AND x.mode = w.mode AND ${IN_WINDOW('x.happened_at')}
                                GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      [org],
    ),
    invoiceWindows: await sql(
      `SELECT w.mode, w.span, w.prev, x.status, count(*)::int AS n, sum(x.price_usd)::text AS v
                                 FROM ${WINDOWS} w JOIN invoices x ON x.organization_id = $1 AND x.mode = w.mode AND ${IN_WINDOW('x.created_at')}
                                GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    customerWindows: await sql(
      `SELECT w.mode, w.span, w.prev, lower(x.customer_email) AS customer_email, count(*)::int AS n,
                                       count(*) FILTER (WHERE x.status = 'COMPLETED')::int AS p,
                                       coalesce(sum(x.price_usd) FILTER (WHERE x.status = 'COMPLETED'), 0)::numeric(78,30)::text AS v
                                  FROM ${WINDOWS} w JOIN invoices x ON x.organization_id = $1 AND x.mode = w.mode AND x.customer_email IS NOT NULL
                                   AND ${IN_WINDOW('x.created_at')}
                                 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      [org],
    ),
    windowCustomers: await sql(
      `SELECT w.mode, w.span, w.prev, count(DISTINCT lower(x.customer_email))::int AS n
                                  FROM ${WINDOWS} w JOIN invoices x ON x.organization_id = $1 AND x.mode = w.mode AND x.customer_email IS NOT NULL
                                   AND ${IN_WINDOW('x.created_at')}
                                 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [org],
    ),
  };
}
