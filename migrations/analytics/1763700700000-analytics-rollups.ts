import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollups behind the analytics dashboard, kept by PostgreSQL triggers on payments and invoices so
 * they move in the same transaction as the row that moves them, whoever writes it (API, CLI, seed
 * scripts, a hand-run UPDATE). Every rollup row carries organization_id and mode.
 *
 * - analytics_payment_buckets: per (organization, mode, grain, bucket, provider, currency, status)
 *   the number of payments and the sum of their price_usd. A payment sits in the bucket of its
 *   happened_at. grain 'hour' serves the 24-hour windows, grain 'day' the others.
 * - analytics_invoice_buckets: per (organization, mode, grain, bucket, status) the number of
 *   invoices and the sum of their price_usd, by created_at.
 * - analytics_customer_buckets: per (organization, mode, grain, bucket, lower(customer_email)) the
 *   number of invoices, of COMPLETED ones and the sum of the COMPLETED ones' price_usd.
 * - analytics_customers: per (organization, mode, lower(customer_email)) the first invoice's time.
 * - analytics_first_invoice_series: per (organization, mode, grain, bucket) how many customers had
 *   their first invoice then (new customers of a window).
 * - analytics_payment_series / analytics_invoice_series: per (organization, mode, grain, bucket) the
 *   COMPLETED payments' count and volume, and the invoices created: the dashboard's series.
 * - analytics_*_windows: running totals of the day periods (see analytics_roll_windows below).
 *
 * A change applies the old row's contribution with sign -1 and the new row's with +1. Rollup rows
 * are locked in one order (the organization's anchor row first, then buckets, series and windows;
 * day before hour; old key before new key when the old key sorts first) so that concurrent writers
 * wait for each other instead of deadlocking. Bucket rows that fall to zero stay (they add
 * nothing). TRUNCATE of payments or invoices is not followed: run analytics_rebuild(org) after one.
 */
export class AnalyticsRollups1763700700000 implements MigrationInterface {
  name = 'AnalyticsRollups1763700700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analytics_payment_buckets (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        provider_id     text NOT NULL,
        currency        text NOT NULL,
        status          text NOT NULL,
        payments_count  bigint NOT NULL,
        volume_usd      numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket, provider_id, currency, status)
      )`);
    await q.query(`
      CREATE TABLE analytics_invoice_buckets (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        status          text NOT NULL,
        invoices_count  bigint NOT NULL,
        price_usd_sum   numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket, status)
      )`);
    await q.query(`
      CREATE TABLE analytics_customer_buckets (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        customer_email  text NOT NULL,
        invoices_count  bigint NOT NULL,
        paid_count      bigint NOT NULL,
        paid_volume_usd numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket, customer_email)
      )`);
    await q.query(`
      CREATE TABLE analytics_customers (
        organization_id  text NOT NULL,
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        customer_email   text NOT NULL,
        first_invoice_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, customer_email)
      )`);
    await q.query(`CREATE INDEX analytics_customers_first_idx ON analytics_customers (organization_id, mode, first_invoice_at)`);
    // How many customers had their first invoice in each bucket: "new customers" of a year is 365 rows.
    await q.query(`
      CREATE TABLE analytics_first_invoice_series (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        customers_count bigint NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket)
      )`);
    // The series: per bucket, COMPLETED payments (count, USD volume) and invoices created. One row a
    // bucket, so a year's series reads 365 rows. Payments and invoices keep separate tables, so a
    // payment's transaction locks payment rows before invoice rows, as everywhere else.
    await q.query(`
      CREATE TABLE analytics_payment_series (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        completed_count bigint NOT NULL,
        volume_usd      numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket)
      )`);
    await q.query(`
      CREATE TABLE analytics_invoice_series (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        grain           text NOT NULL CHECK (grain IN ('hour', 'day')),
        bucket          timestamptz NOT NULL,
        invoices_count  bigint NOT NULL,
        PRIMARY KEY (organization_id, mode, grain, bucket)
      )`);

    // Running totals of the day windows (last_N_days and prev_last_N_days, N in 7, 30, 90, 365) as of
    // anchor_day, the UTC day they end on. The triggers add each change to the windows that hold
    // its day; analytics_roll_windows moves them to a new day (or builds them) from the daily buckets.
    // anchor_day NULL: not built yet (the triggers leave the windows alone).
    await q.query(`
      CREATE TABLE analytics_window_anchors (
        organization_id text NOT NULL,
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        anchor_day      date,
        PRIMARY KEY (organization_id, mode)
      )`);
    await q.query(`
      CREATE TABLE analytics_payment_windows (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        span            integer NOT NULL,
        prev            boolean NOT NULL,
        provider_id     text NOT NULL,
        currency        text NOT NULL,
        status          text NOT NULL,
        payments_count  bigint NOT NULL,
        volume_usd      numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, span, prev, provider_id, currency, status)
      )`);
    await q.query(`
      CREATE TABLE analytics_invoice_windows (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        span            integer NOT NULL,
        prev            boolean NOT NULL,
        status          text NOT NULL,
        invoices_count  bigint NOT NULL,
        price_usd_sum   numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, span, prev, status)
      )`);
    await q.query(`
      CREATE TABLE analytics_customer_windows (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        span            integer NOT NULL,
        prev            boolean NOT NULL,
        customer_email  text NOT NULL,
        invoices_count  bigint NOT NULL,
        paid_count      bigint NOT NULL,
        paid_volume_usd numeric(78,30) NOT NULL,
        PRIMARY KEY (organization_id, mode, span, prev, customer_email)
      )`);
    await q.query(`CREATE INDEX analytics_customer_windows_top_idx ON analytics_customer_windows
                     (organization_id, mode, span, prev, paid_volume_usd DESC, invoices_count DESC, customer_email) WHERE paid_volume_usd > 0`);
    await q.query(`CREATE INDEX analytics_customer_windows_active_idx ON analytics_customer_windows
                     (organization_id, mode, span, prev) WHERE invoices_count > 0`);
    // The day windows (as of anchor day a) that hold day d.
    await q.query(`
      CREATE FUNCTION analytics_windows_of(a date, d date) RETURNS TABLE (span integer, prev boolean) LANGUAGE sql IMMUTABLE AS $$
        SELECT s.span, p.prev FROM (VALUES (7), (30), (90), (365)) AS s(span) CROSS JOIN (VALUES (false), (true)) AS p(prev)
         WHERE CASE WHEN p.prev THEN d BETWEEN a - 2 * s.span + 1 AND a - s.span ELSE d BETWEEN a - s.span + 1 AND a END
         ORDER BY s.span, p.prev
      $$`);
    // Every writer takes the organization's anchor row FOR SHARE before any rollup row, so a roll
    // (FOR UPDATE) waits for writers in flight and writers wait for the roll: the windows always
    // equal the sum of the daily buckets of their days.
    await q.query(`
      CREATE FUNCTION analytics_anchor(org text, m text) RETURNS date LANGUAGE plpgsql AS $$
      DECLARE
        a date;
      BEGIN
        SELECT anchor_day INTO a FROM analytics_window_anchors WHERE organization_id = org AND mode = m FOR SHARE;
        IF NOT FOUND THEN
          INSERT INTO analytics_window_anchors (organization_id, mode, anchor_day) VALUES (org, m, NULL) ON CONFLICT DO NOTHING;
          SELECT anchor_day INTO a FROM analytics_window_anchors WHERE organization_id = org AND mode = m FOR SHARE;
        END IF;
        RETURN a;
      END $$`);

    await q.query(`
      CREATE FUNCTION analytics_apply_payment(p payments, sign integer) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        a date := analytics_anchor(p.organization_id, p.mode);
      BEGIN
        INSERT INTO analytics_payment_buckets AS b
               (organization_id, mode, grain, bucket, provider_id, currency, status, payments_count, volume_usd)
        SELECT p.organization_id, p.mode, g.grain, date_trunc(g.grain, p.happened_at, 'UTC'), p.provider_id, p.currency, p.status,
               sign, sign * p.price_usd
          FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
         ORDER BY g.ord
        ON CONFLICT (organization_id, mode, grain, bucket, provider_id, currency, status) DO UPDATE
           SET payments_count = b.payments_count + EXCLUDED.payments_count,
               volume_usd = b.volume_usd + EXCLUDED.volume_usd;
        IF p.status = 'COMPLETED' THEN
          INSERT INTO analytics_payment_series AS b (organization_id, mode, grain, bucket, completed_count, volume_usd)
          SELECT p.organization_id, p.mode, g.grain, date_trunc(g.grain, p.happened_at, 'UTC'), sign, sign * p.price_usd
            FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
           ORDER BY g.ord
          ON CONFLICT (organization_id, mode, grain, bucket) DO UPDATE
             SET completed_count = b.completed_count + EXCLUDED.completed_count, volume_usd = b.volume_usd + EXCLUDED.volume_usd;
        END IF;
        IF a IS NOT NULL THEN
          INSERT INTO analytics_payment_windows AS w
                 (organization_id, mode, span, prev, provider_id, currency, status, payments_count, volume_usd)
          SELECT p.organization_id, p.mode, x.span, x.prev, p.provider_id, p.currency, p.status, sign, sign * p.price_usd
            FROM analytics_windows_of(a, (p.happened_at AT TIME ZONE 'UTC')::date) AS x
          ON CONFLICT (organization_id, mode, span, prev, provider_id, currency, status) DO UPDATE
             SET payments_count = w.payments_count + EXCLUDED.payments_count,
                 volume_usd = w.volume_usd + EXCLUDED.volume_usd;
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_payments_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM analytics_apply_payment(NEW, 1);
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM analytics_apply_payment(OLD, -1);
        ELSIF (OLD.organization_id, OLD.mode, OLD.happened_at, OLD.provider_id, OLD.currency, OLD.status, OLD.price_usd)
              IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.happened_at, NEW.provider_id, NEW.currency, NEW.status, NEW.price_usd) THEN
          IF (OLD.organization_id, OLD.mode, date_trunc('hour', OLD.happened_at, 'UTC'), OLD.provider_id, OLD.currency, OLD.status)
             <= (NEW.organization_id, NEW.mode, date_trunc('hour', NEW.happened_at, 'UTC'), NEW.provider_id, NEW.currency, NEW.status) THEN
            PERFORM analytics_apply_payment(OLD, -1);
            PERFORM analytics_apply_payment(NEW, 1);
          ELSE
            PERFORM analytics_apply_payment(NEW, 1);
            PERFORM analytics_apply_payment(OLD, -1);
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER analytics_payments_rollup AFTER INSERT OR UPDATE OR DELETE ON payments
        FOR EACH ROW EXECUTE FUNCTION analytics_payments_changed()`);

    await q.query(`
      CREATE FUNCTION analytics_apply_invoice(i invoices, sign integer) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        a date := analytics_anchor(i.organization_id, i.mode);
        paid integer := CASE WHEN i.status = 'COMPLETED' THEN 1 ELSE 0 END;
        d date := (i.created_at AT TIME ZONE 'UTC')::date;
      BEGIN
        INSERT INTO analytics_invoice_buckets AS b (organization_id, mode, grain, bucket, status, invoices_count, price_usd_sum)
        SELECT i.organization_id, i.mode, g.grain, date_trunc(g.grain, i.created_at, 'UTC'), i.status, sign, sign * i.price_usd
          FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
         ORDER BY g.ord
        ON CONFLICT (organization_id, mode, grain, bucket, status) DO UPDATE
           SET invoices_count = b.invoices_count + EXCLUDED.invoices_count,
               price_usd_sum = b.price_usd_sum + EXCLUDED.price_usd_sum;
        INSERT INTO analytics_invoice_series AS b (organization_id, mode, grain, bucket, invoices_count)
        SELECT i.organization_id, i.mode, g.grain, date_trunc(g.grain, i.created_at, 'UTC'), sign
          FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
         ORDER BY g.ord
        ON CONFLICT (organization_id, mode, grain, bucket) DO UPDATE SET invoices_count = b.invoices_count + EXCLUDED.invoices_count;
        IF i.customer_email IS NOT NULL THEN
          INSERT INTO analytics_customer_buckets AS b
                 (organization_id, mode, grain, bucket, customer_email, invoices_count, paid_count, paid_volume_usd)
          SELECT i.organization_id, i.mode, g.grain, date_trunc(g.grain, i.created_at, 'UTC'), lower(i.customer_email),
                 sign, sign * paid, sign * paid * i.price_usd
            FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
           ORDER BY g.ord
          ON CONFLICT (organization_id, mode, grain, bucket, customer_email) DO UPDATE
             SET invoices_count = b.invoices_count + EXCLUDED.invoices_count,
                 paid_count = b.paid_count + EXCLUDED.paid_count,
                 paid_volume_usd = b.paid_volume_usd + EXCLUDED.paid_volume_usd;
        END IF;
        IF a IS NOT NULL THEN
          INSERT INTO analytics_invoice_windows AS w (organization_id, mode, span, prev, status, invoices_count, price_usd_sum)
          SELECT i.organization_id, i.mode, x.span, x.prev, i.status, sign, sign * i.price_usd FROM analytics_windows_of(a, d) AS x
          ON CONFLICT (organization_id, mode, span, prev, status) DO UPDATE
             SET invoices_count = w.invoices_count + EXCLUDED.invoices_count,
                 price_usd_sum = w.price_usd_sum + EXCLUDED.price_usd_sum;
          IF i.customer_email IS NOT NULL THEN
            INSERT INTO analytics_customer_windows AS w
                   (organization_id, mode, span, prev, customer_email, invoices_count, paid_count, paid_volume_usd)
            SELECT i.organization_id, i.mode, x.span, x.prev, lower(i.customer_email), sign, sign * paid, sign * paid * i.price_usd
              FROM analytics_windows_of(a, d) AS x
            ON CONFLICT (organization_id, mode, span, prev, customer_email) DO UPDATE
               SET invoices_count = w.invoices_count + EXCLUDED.invoices_count,
                   paid_count = w.paid_count + EXCLUDED.paid_count,
                   paid_volume_usd = w.paid_volume_usd + EXCLUDED.paid_volume_usd;
          END IF;
        END IF;
      END $$`);
    // A customer's first invoice moves to first_at (NULL: the customer has no invoice left); with
    // only_earlier, it moves only if first_at is earlier. The first-invoice series follows.
    await q.query(`
      CREATE FUNCTION analytics_count_first(org text, m text, at timestamptz, delta integer) RETURNS void LANGUAGE sql AS $$
        INSERT INTO analytics_first_invoice_series AS f (organization_id, mode, grain, bucket, customers_count)
        SELECT org, m, g.grain, date_trunc(g.grain, at, 'UTC'), delta FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain) ORDER BY g.ord
        ON CONFLICT (organization_id, mode, grain, bucket) DO UPDATE SET customers_count = f.customers_count + EXCLUDED.customers_count
      $$`);
    await q.query(`
      CREATE FUNCTION analytics_set_first(org text, m text, email text, first_at timestamptz, only_earlier boolean) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        old_at timestamptz;
      BEGIN
        IF email IS NULL THEN RETURN; END IF;
        IF first_at IS NOT NULL THEN
          INSERT INTO analytics_customers (organization_id, mode, customer_email, first_invoice_at) VALUES (org, m, email, first_at)
          ON CONFLICT (organization_id, mode, customer_email) DO NOTHING;
          IF FOUND THEN
            PERFORM analytics_count_first(org, m, first_at, 1);
            RETURN;
          END IF;
        END IF;
        SELECT first_invoice_at INTO old_at FROM analytics_customers
         WHERE organization_id = org AND mode = m AND customer_email = email FOR UPDATE;
        IF NOT FOUND THEN RETURN; END IF;
        IF first_at IS NULL THEN
          DELETE FROM analytics_customers WHERE organization_id = org AND mode = m AND customer_email = email;
          PERFORM analytics_count_first(org, m, old_at, -1);
          RETURN;
        END IF;
        IF old_at = first_at OR (only_earlier AND old_at <= first_at) THEN RETURN; END IF;
        UPDATE analytics_customers SET first_invoice_at = first_at WHERE organization_id = org AND mode = m AND customer_email = email;
        IF old_at < first_at THEN
          PERFORM analytics_count_first(org, m, old_at, -1);
          PERFORM analytics_count_first(org, m, first_at, 1);
        ELSE
          PERFORM analytics_count_first(org, m, first_at, 1);
          PERFORM analytics_count_first(org, m, old_at, -1);
        END IF;
      END $$`);
    // The first invoice of one customer, recomputed from the invoices (after a delete or a change
    // of email or created_at; inserts take the cheaper only_earlier path).
    await q.query(`
      CREATE FUNCTION analytics_refresh_customer(org text, m text, email text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        first_at timestamptz;
      BEGIN
        IF email IS NULL THEN RETURN; END IF;
        SELECT min(created_at) INTO first_at FROM invoices
         WHERE organization_id = org AND mode = m AND lower(customer_email) = email;
        PERFORM analytics_set_first(org, m, email, first_at, false);
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_invoices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM analytics_apply_invoice(NEW, 1);
          PERFORM analytics_set_first(NEW.organization_id, NEW.mode, lower(NEW.customer_email), NEW.created_at, true);
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM analytics_apply_invoice(OLD, -1);
          PERFORM analytics_refresh_customer(OLD.organization_id, OLD.mode, lower(OLD.customer_email));
        ELSIF (OLD.organization_id, OLD.mode, OLD.created_at, OLD.status, OLD.price_usd, lower(OLD.customer_email))
              IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.created_at, NEW.status, NEW.price_usd, lower(NEW.customer_email)) THEN
          IF (OLD.organization_id, OLD.mode, date_trunc('hour', OLD.created_at, 'UTC'), OLD.status, coalesce(lower(OLD.customer_email), ''))
             <= (NEW.organization_id, NEW.mode, date_trunc('hour', NEW.created_at, 'UTC'), NEW.status, coalesce(lower(NEW.customer_email), '')) THEN
            PERFORM analytics_apply_invoice(OLD, -1);
            PERFORM analytics_apply_invoice(NEW, 1);
          ELSE
            PERFORM analytics_apply_invoice(NEW, 1);
            PERFORM analytics_apply_invoice(OLD, -1);
          END IF;
          IF (OLD.organization_id, OLD.mode, OLD.created_at, lower(OLD.customer_email))
             IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.created_at, lower(NEW.customer_email)) THEN
            PERFORM analytics_refresh_customer(OLD.organization_id, OLD.mode, lower(OLD.customer_email));
            PERFORM analytics_refresh_customer(NEW.organization_id, NEW.mode, lower(NEW.customer_email));
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER analytics_invoices_rollup AFTER INSERT OR UPDATE OR DELETE ON invoices
        FOR EACH ROW EXECUTE FUNCTION analytics_invoices_changed()`);

    // Rebuilds one organization's rollups from its payments and invoices (both modes), as the
    // triggers would have left them: for rows written before this migration, bulk loads run with
    // the triggers disabled, and repairs after a TRUNCATE.
    await q.query(`
      CREATE FUNCTION analytics_rebuild(org text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- The day windows are built again by the next dashboard call.
        UPDATE analytics_window_anchors SET anchor_day = NULL WHERE organization_id = org;
        DELETE FROM analytics_payment_windows WHERE organization_id = org;
        DELETE FROM analytics_invoice_windows WHERE organization_id = org;
        DELETE FROM analytics_customer_windows WHERE organization_id = org;
        DELETE FROM analytics_payment_buckets WHERE organization_id = org;
        DELETE FROM analytics_invoice_buckets WHERE organization_id = org;
        DELETE FROM analytics_payment_series WHERE organization_id = org;
        DELETE FROM analytics_first_invoice_series WHERE organization_id = org;
        DELETE FROM analytics_invoice_series WHERE organization_id = org;
        DELETE FROM analytics_customer_buckets WHERE organization_id = org;
        DELETE FROM analytics_customers WHERE organization_id = org;
        INSERT INTO analytics_payment_buckets (organization_id, mode, grain, bucket, provider_id, currency, status, payments_count, volume_usd)
        SELECT organization_id, mode, g.grain, date_trunc(g.grain, happened_at, 'UTC'), provider_id, currency, status, count(*), sum(price_usd)
          FROM payments CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
         WHERE organization_id = org
         GROUP BY 1, 2, 3, 4, 5, 6, 7;
        INSERT INTO analytics_invoice_buckets (organization_id, mode, grain, bucket, status, invoices_count, price_usd_sum)
        SELECT organization_id, mode, g.grain, date_trunc(g.grain, created_at, 'UTC'), status, count(*), sum(price_usd)
          FROM invoices CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
         WHERE organization_id = org
         GROUP BY 1, 2, 3, 4, 5;
        INSERT INTO analytics_customer_buckets (organization_id, mode, grain, bucket, customer_email, invoices_count, paid_count, paid_volume_usd)
        SELECT organization_id, mode, g.grain, date_trunc(g.grain, created_at, 'UTC'), lower(customer_email), count(*),
               count(*) FILTER (WHERE status = 'COMPLETED'), coalesce(sum(price_usd) FILTER (WHERE status = 'COMPLETED'), 0)
          FROM invoices CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
         WHERE organization_id = org AND customer_email IS NOT NULL
         GROUP BY 1, 2, 3, 4, 5;
        INSERT INTO analytics_customers (organization_id, mode, customer_email, first_invoice_at)
        SELECT organization_id, mode, lower(customer_email), min(created_at)
          FROM invoices WHERE organization_id = org AND customer_email IS NOT NULL
         GROUP BY 1, 2, 3;
        INSERT INTO analytics_first_invoice_series (organization_id, mode, grain, bucket, customers_count)
        SELECT organization_id, mode, g.grain, date_trunc(g.grain, first_invoice_at, 'UTC'), count(*)
          FROM analytics_customers CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
         WHERE organization_id = org
         GROUP BY 1, 2, 3, 4;
        INSERT INTO analytics_payment_series (organization_id, mode, grain, bucket, completed_count, volume_usd)
        SELECT organization_id, mode, grain, bucket, sum(payments_count), sum(volume_usd)
          FROM analytics_payment_buckets WHERE organization_id = org AND status = 'COMPLETED'
         GROUP BY 1, 2, 3, 4;
        INSERT INTO analytics_invoice_series (organization_id, mode, grain, bucket, invoices_count)
        SELECT organization_id, mode, grain, bucket, sum(invoices_count)
          FROM analytics_invoice_buckets WHERE organization_id = org
         GROUP BY 1, 2, 3, 4;
      END $$`);
    // Moves one organization's day windows to end on `today` (builds them the first time, or after
    // a long pause or a clock going back): each window gains the daily buckets of the days that
    // enter it and loses those of the days that leave it.
    await q.query(`
      CREATE FUNCTION analytics_roll_windows(org text, m text, today date) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        a date;
        full_build boolean;
      BEGIN
        INSERT INTO analytics_window_anchors (organization_id, mode, anchor_day) VALUES (org, m, NULL) ON CONFLICT DO NOTHING;
        SELECT anchor_day INTO a FROM analytics_window_anchors WHERE organization_id = org AND mode = m FOR UPDATE;
        IF a IS NOT DISTINCT FROM today THEN RETURN; END IF;
        full_build := a IS NULL OR a > today OR today - a >= 365;
        IF full_build THEN
          DELETE FROM analytics_payment_windows WHERE organization_id = org AND mode = m;
          DELETE FROM analytics_invoice_windows WHERE organization_id = org AND mode = m;
          DELETE FROM analytics_customer_windows WHERE organization_id = org AND mode = m;
          a := NULL;
        END IF;
        CREATE TEMP TABLE IF NOT EXISTS analytics_roll_delta (day date, bucket timestamptz, span integer, prev boolean, sign integer) ON COMMIT DROP;
        TRUNCATE analytics_roll_delta;
        INSERT INTO analytics_roll_delta (day, bucket, span, prev, sign)
        SELECT x.day, (x.day::timestamp AT TIME ZONE 'UTC'), x.span, x.prev, sum(x.sign)::integer
          FROM (
            SELECT DISTINCT d::date AS day FROM (
              SELECT generate_series((CASE WHEN full_build THEN today - 729 ELSE a + 1 END)::timestamp, today::timestamp, interval '1 day') AS d
              UNION ALL
              SELECT generate_series((a - v.s * w.k + 1)::timestamp, (today - v.s * w.k)::timestamp, interval '1 day')
                FROM (VALUES (7), (30), (90), (365)) AS v(s) CROSS JOIN (VALUES (1), (2)) AS w(k)
               WHERE NOT full_build
            ) days
          ) dd
          CROSS JOIN LATERAL (
            SELECT dd.day, n.span, n.prev, 1 AS sign FROM analytics_windows_of(today, dd.day) AS n
            UNION ALL
            SELECT dd.day, o.span, o.prev, -1 FROM analytics_windows_of(a, dd.day) AS o WHERE a IS NOT NULL
          ) x
         GROUP BY x.day, x.span, x.prev
        HAVING sum(x.sign) <> 0;
        ANALYZE analytics_roll_delta;

        INSERT INTO analytics_payment_windows AS w (organization_id, mode, span, prev, provider_id, currency, status, payments_count, volume_usd)
        SELECT org, m, r.span, r.prev, b.provider_id, b.currency, b.status, sum(r.sign * b.payments_count), sum(r.sign * b.volume_usd)
          FROM analytics_roll_delta r -- one index range per day that moves (OFFSET 0 keeps it a nested loop)
          CROSS JOIN LATERAL (SELECT * FROM analytics_payment_buckets x
                               WHERE x.organization_id = org AND x.mode = m AND x.grain = 'day' AND x.bucket = r.bucket OFFSET 0) b
         GROUP BY r.span, r.prev, b.provider_id, b.currency, b.status
         ORDER BY r.span, r.prev, b.provider_id, b.currency, b.status
        ON CONFLICT (organization_id, mode, span, prev, provider_id, currency, status) DO UPDATE
           SET payments_count = w.payments_count + EXCLUDED.payments_count, volume_usd = w.volume_usd + EXCLUDED.volume_usd;
        INSERT INTO analytics_invoice_windows AS w (organization_id, mode, span, prev, status, invoices_count, price_usd_sum)
        SELECT org, m, r.span, r.prev, b.status, sum(r.sign * b.invoices_count), sum(r.sign * b.price_usd_sum)
          FROM analytics_roll_delta r
          CROSS JOIN LATERAL (SELECT * FROM analytics_invoice_buckets x
                               WHERE x.organization_id = org AND x.mode = m AND x.grain = 'day' AND x.bucket = r.bucket OFFSET 0) b
         GROUP BY r.span, r.prev, b.status
         ORDER BY r.span, r.prev, b.status
        ON CONFLICT (organization_id, mode, span, prev, status) DO UPDATE
           SET invoices_count = w.invoices_count + EXCLUDED.invoices_count, price_usd_sum = w.price_usd_sum + EXCLUDED.price_usd_sum;
        INSERT INTO analytics_customer_windows AS w (organization_id, mode, span, prev, customer_email, invoices_count, paid_count, paid_volume_usd)
        SELECT org, m, r.span, r.prev, b.customer_email, sum(r.sign * b.invoices_count), sum(r.sign * b.paid_count), sum(r.sign * b.paid_volume_usd)
          FROM analytics_roll_delta r
          CROSS JOIN LATERAL (SELECT * FROM analytics_customer_buckets x
                               WHERE x.organization_id = org AND x.mode = m AND x.grain = 'day' AND x.bucket = r.bucket OFFSET 0) b
         GROUP BY r.span, r.prev, b.customer_email
         ORDER BY r.span, r.prev, b.customer_email
        ON CONFLICT (organization_id, mode, span, prev, customer_email) DO UPDATE
           SET invoices_count = w.invoices_count + EXCLUDED.invoices_count, paid_count = w.paid_count + EXCLUDED.paid_count,
               paid_volume_usd = w.paid_volume_usd + EXCLUDED.paid_volume_usd;

        DELETE FROM analytics_payment_windows WHERE organization_id = org AND mode = m AND payments_count = 0 AND volume_usd = 0;
        DELETE FROM analytics_invoice_windows WHERE organization_id = org AND mode = m AND invoices_count = 0 AND price_usd_sum = 0;
        DELETE FROM analytics_customer_windows WHERE organization_id = org AND mode = m AND invoices_count = 0 AND paid_count = 0 AND paid_volume_usd = 0;
        UPDATE analytics_window_anchors SET anchor_day = today WHERE organization_id = org AND mode = m;
      END $$`);
    // Rows written before this migration.
    await q.query(`SELECT analytics_rebuild(id) FROM organizations`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER analytics_invoices_rollup ON invoices`);
    await q.query(`DROP TRIGGER analytics_payments_rollup ON payments`);
    await q.query(`DROP FUNCTION analytics_rebuild(text)`);
    await q.query(`DROP FUNCTION analytics_roll_windows(text, text, date)`);
    await q.query(`DROP FUNCTION analytics_invoices_changed()`);
    await q.query(`DROP FUNCTION analytics_refresh_customer(text, text, text)`);
    await q.query(`DROP FUNCTION analytics_set_first(text, text, text, timestamptz, boolean)`);
    await q.query(`DROP FUNCTION analytics_count_first(text, text, timestamptz, integer)`);
    await q.query(`DROP FUNCTION analytics_apply_invoice(invoices, integer)`);
    await q.query(`DROP FUNCTION analytics_payments_changed()`);
    await q.query(`DROP FUNCTION analytics_apply_payment(payments, integer)`);
    await q.query(`DROP FUNCTION analytics_anchor(text, text)`);
    await q.query(`DROP FUNCTION analytics_windows_of(date, date)`);
    await q.query(`DROP TABLE analytics_customer_windows`);
    await q.query(`DROP TABLE analytics_invoice_windows`);
    await q.query(`DROP TABLE analytics_payment_windows`);
    await q.query(`DROP TABLE analytics_window_anchors`);
    await q.query(`DROP TABLE analytics_customers`);
    await q.query(`DROP TABLE analytics_invoice_series`);
    await q.query(`DROP TABLE analytics_first_invoice_series`);
    await q.query(`DROP TABLE analytics_payment_series`);
    await q.query(`DROP TABLE analytics_customer_buckets`);
    await q.query(`DROP TABLE analytics_invoice_buckets`);
    await q.query(`DROP TABLE analytics_payment_buckets`);
  }
}
