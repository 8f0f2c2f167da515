import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's read as a function, analytics_dashboard(...), so that each database connection
 * plans it once: PL/pgSQL keeps the plans of its statements for the session, where the same text
 * sent by the service was parsed and planned at every call (about as much work as running it).
 * Its plans are generic (plan_cache_mode): every part is an index range on the organization and
 * mode whatever the arguments, and left to choose, PostgreSQL kept planning some periods again at
 * every call. It lives in the database like the rollups it reads and works the same through any
 * connection pooler (no client-side prepared statements). It only reads.
 *
 * analytics_dashboard(org, m, grain, first_bucket, end_bucket, span_days, previous, today):
 * - span_days NULL: the window [first_bucket, end_bucket) of `grain` summed from its buckets (the
 *   hourly periods: at most 24 buckets per key; unique customers counted over the window's
 *   customer buckets);
 * - span_days and previous given: that kept day window from its running totals, when they end on
 *   `today` (kept = true): about 60 payment rows, 6 invoice rows, the kept number of customers and
 *   the top customers through an index; otherwise one row with kept = false and nothing else (the
 *   caller moves the windows to today first).
 * Both read new customers and the series, one row per bucket that has one, in the window. One
 * statement each: one snapshot for every section.
 *
 * Columns: payments as JSON [[provider_id, currency, status, count, volume_usd], ...], invoices
 * [[status, count, price_usd_sum], ...], top [[email, invoices_count, paid_volume_usd], ...]
 * ranked; the series as text "<bucket start, epoch seconds> <value> <bucket> <value> ..." (cheaper
 * to build than JSON rows). Money is the text of numeric(78,30) values: 30 fractional digits.
 */
export class AnalyticsDashboardRead1763701100000 implements MigrationInterface {
  name = 'AnalyticsDashboardRead1763701100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION analytics_dashboard(org text, m text, g text, first_bucket timestamptz, end_bucket timestamptz,
                                          span_days integer, previous boolean, today date)
      RETURNS TABLE (kept boolean, payments json, invoices json, customers bigint, top json, new_customers bigint,
                     payment_series text, invoice_series text)
      LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
      BEGIN
        IF span_days IS NOT NULL THEN
          RETURN QUERY
          SELECT
            true,
            (SELECT json_agg(json_build_array(w.provider_id, w.currency, w.status, w.payments_count, w.volume_usd::text))
               FROM analytics_payment_windows w
              WHERE w.organization_id = org AND w.mode = m AND w.span = span_days AND w.prev = previous AND w.payments_count <> 0),
            (SELECT json_agg(json_build_array(w.status, w.invoices_count, w.price_usd_sum::text))
               FROM analytics_invoice_windows w
              WHERE w.organization_id = org AND w.mode = m AND w.span = span_days AND w.prev = previous AND w.invoices_count <> 0),
            coalesce((SELECT c.customers_count FROM analytics_window_customers c
                       WHERE c.organization_id = org AND c.mode = m AND c.span = span_days AND c.prev = previous), 0),
            (SELECT json_agg(json_build_array(t.customer_email, t.invoices_count, t.paid_volume_usd::text)
                             ORDER BY t.paid_volume_usd DESC, t.invoices_count DESC, t.customer_email)
               FROM (SELECT w.customer_email, w.invoices_count, w.paid_volume_usd FROM analytics_customer_windows w
                      WHERE w.organization_id = org AND w.mode = m AND w.span = span_days AND w.prev = previous AND w.paid_volume_usd > 0
                      ORDER BY w.paid_volume_usd DESC, w.invoices_count DESC, w.customer_email LIMIT 5) t),
            (SELECT coalesce(sum(f.customers_count), 0)::bigint FROM analytics_first_invoice_series f
              WHERE f.organization_id = org AND f.mode = m AND f.grain = g AND f.bucket >= first_bucket AND f.bucket < end_bucket),
            (SELECT string_agg(date_part('epoch', s.bucket)::bigint || ' ' || s.volume_usd, ' ') FROM analytics_payment_series s
              WHERE s.organization_id = org AND s.mode = m AND s.grain = g AND s.bucket >= first_bucket AND s.bucket < end_bucket),
            (SELECT string_agg(date_part('epoch', s.bucket)::bigint || ' ' || s.invoices_count, ' ') FROM analytics_invoice_series s
              WHERE s.organization_id = org AND s.mode = m AND s.grain = g AND s.bucket >= first_bucket AND s.bucket < end_bucket)
           WHERE EXISTS (SELECT FROM analytics_window_anchors a WHERE a.organization_id = org AND a.mode = m AND a.anchor_day = today);
          IF NOT FOUND THEN
            RETURN QUERY SELECT false, NULL::json, NULL::json, NULL::bigint, NULL::json, NULL::bigint, NULL::text, NULL::text;
          END IF;
          RETURN;
        END IF;
        RETURN QUERY
        WITH cust AS MATERIALIZED (
          SELECT b.customer_email AS e, sum(b.invoices_count) AS n, sum(b.paid_volume_usd) AS v FROM analytics_customer_buckets b
           WHERE b.organization_id = org AND b.mode = m AND b.grain = g AND b.bucket >= first_bucket AND b.bucket < end_bucket
           GROUP BY b.customer_email HAVING sum(b.invoices_count) <> 0
        )
        SELECT
          true,
          (SELECT json_agg(json_build_array(p.provider_id, p.currency, p.status, p.n, p.v::text)) FROM (
             SELECT b.provider_id, b.currency, b.status, sum(b.payments_count) AS n, sum(b.volume_usd) AS v FROM analytics_payment_buckets b
              WHERE b.organization_id = org AND b.mode = m AND b.grain = g AND b.bucket >= first_bucket AND b.bucket < end_bucket
              GROUP BY b.provider_id, b.currency, b.status HAVING sum(b.payments_count) <> 0) p),
          (SELECT json_agg(json_build_array(i.status, i.n, i.v::text)) FROM (
             SELECT b.status, sum(b.invoices_count) AS n, sum(b.price_usd_sum) AS v FROM analytics_invoice_buckets b
              WHERE b.organization_id = org AND b.mode = m AND b.grain = g AND b.bucket >= first_bucket AND b.bucket < end_bucket
              GROUP BY b.status HAVING sum(b.invoices_count) <> 0) i),
          (SELECT count(*) FROM cust),
          (SELECT json_agg(json_build_array(t.e, t.n, t.v::text) ORDER BY t.v DESC, t.n DESC, t.e)
             FROM (SELECT c.e, c.n, c.v FROM cust c WHERE c.v > 0 ORDER BY c.v DESC, c.n DESC, c.e LIMIT 5) t),
          (SELECT coalesce(sum(f.customers_count), 0)::bigint FROM analytics_first_invoice_series f
            WHERE f.organization_id = org AND f.mode = m AND f.grain = g AND f.bucket >= first_bucket AND f.bucket < end_bucket),
          (SELECT string_agg(date_part('epoch', s.bucket)::bigint || ' ' || s.volume_usd, ' ') FROM analytics_payment_series s
            WHERE s.organization_id = org AND s.mode = m AND s.grain = g AND s.bucket >= first_bucket AND s.bucket < end_bucket),
          (SELECT string_agg(date_part('epoch', s.bucket)::bigint || ' ' || s.invoices_count, ' ') FROM analytics_invoice_series s
            WHERE s.organization_id = org AND s.mode = m AND s.grain = g AND s.bucket >= first_bucket AND s.bucket < end_bucket);
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION analytics_dashboard(text, text, text, timestamptz, timestamptz, integer, boolean, date)`);
  }
}
