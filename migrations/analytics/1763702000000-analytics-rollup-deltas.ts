import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollup writers append, a folder adds up: no row shared by an organization's writers.
 *
 * Until now the row triggers on payments and invoices updated the rollup rows themselves (today's
 * buckets and series, the kept windows) and, to keep them from deadlocking, took the organization's
 * anchor row FOR UPDATE first (AnalyticsWriterLock): every invoice and payment write of one
 * organization and mode ran one at a time, whatever the hardware.
 *
 * Now the triggers only append the change to an append-only table (one row per contribution: the
 * old row's with sign -1, the new row's with +1), which no other writer touches, so writers of one
 * organization wait only for each other's rows (the same invoice or payment). analytics_fold(org,
 * mode) moves an organization's appended changes into the rollup rows: it takes the organization's
 * anchor row FOR UPDATE (folds and window rolls of one organization run one at a time; writers
 * never take it), deletes the changes it can see and adds them up, grouped, to the buckets, series
 * and kept windows, in one transaction. A change is therefore either still appended or folded,
 * never both and never lost: a change committed while a fold runs is invisible to its delete and
 * is folded by the next one. The service folds every ANALYTICS_FOLD_SECONDS in the background (one
 * instance at a time), and analytics_dashboard_now(...) folds the caller's organization before it
 * reads, so the dashboard answers with every write committed before the call, as before.
 *
 * Customers' first invoices (analytics_customers, the first-invoice series) are set by the fold
 * too, as the triggers did: the earliest created_at of the appended inserts (only if earlier than
 * the kept one), or recomputed from the invoices when an appended change deleted an invoice or
 * changed its created_at or email.
 *
 * analytics_rebuild(org) (after a bulk load with the triggers off) now first waits for the
 * organization's folds, then for writers in flight (a SHARE lock on the appended tables, held until
 * it commits: writes of every organization wait while it runs), and drops the organization's
 * appended changes, which its recomputation from the raw rows already holds.
 *
 * The old per-row functions (analytics_apply_payment, analytics_apply_invoice, analytics_anchor)
 * stay for down().
 */
export class AnalyticsRollupDeltas1763702000000 implements MigrationInterface {
  name = 'AnalyticsRollupDeltas1763702000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analytics_payment_deltas (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        happened_at     timestamptz NOT NULL,
        provider_id     text NOT NULL,
        currency        text NOT NULL,
        status          text NOT NULL,
        price_usd       numeric(78,30) NOT NULL,
        sign            smallint NOT NULL CHECK (sign IN (-1, 1))
      )`);
    await q.query(`CREATE INDEX analytics_payment_deltas_scope_idx ON analytics_payment_deltas (organization_id, mode)`);
    // customer_email is stored lower-cased. refresh: the customer's first invoice has to be
    // recomputed from the invoices (an invoice deleted, or its created_at or email changed).
    await q.query(`
      CREATE TABLE analytics_invoice_deltas (
        organization_id text NOT NULL,
        mode            text NOT NULL,
        created_at      timestamptz NOT NULL,
        status          text NOT NULL,
        price_usd       numeric(78,30) NOT NULL,
        customer_email  text,
        sign            smallint NOT NULL CHECK (sign IN (-1, 1)),
        refresh         boolean NOT NULL
      )`);
    await q.query(`CREATE INDEX analytics_invoice_deltas_scope_idx ON analytics_invoice_deltas (organization_id, mode)`);
    // Rows are inserted and soon deleted: let a server's autovacuum keep up with them.
    for (const t of ['analytics_payment_deltas', 'analytics_invoice_deltas']) {
      await q.query(`ALTER TABLE ${t} SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000,
                                           autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000)`);
    }

    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_payments_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO analytics_payment_deltas VALUES
            (NEW.organization_id, NEW.mode, NEW.happened_at, NEW.provider_id, NEW.currency, NEW.status, NEW.price_usd, 1);
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO analytics_payment_deltas VALUES
            (OLD.organization_id, OLD.mode, OLD.happened_at, OLD.provider_id, OLD.currency, OLD.status, OLD.price_usd, -1);
        ELSIF (OLD.organization_id, OLD.mode, OLD.happened_at, OLD.provider_id, OLD.currency, OLD.status, OLD.price_usd)
              IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.happened_at, NEW.provider_id, NEW.currency, NEW.status, NEW.price_usd) THEN
          INSERT INTO analytics_payment_deltas VALUES
            (OLD.organization_id, OLD.mode, OLD.happened_at, OLD.provider_id, OLD.currency, OLD.status, OLD.price_usd, -1),
            (NEW.organization_id, NEW.mode, NEW.happened_at, NEW.provider_id, NEW.currency, NEW.status, NEW.price_usd, 1);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_invoices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r boolean;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO analytics_invoice_deltas VALUES
            (NEW.organization_id, NEW.mode, NEW.created_at, NEW.status, NEW.price_usd, lower(NEW.customer_email), 1, false);
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO analytics_invoice_deltas VALUES
            (OLD.organization_id, OLD.mode, OLD.created_at, OLD.status, OLD.price_usd, lower(OLD.customer_email), -1, true);
        ELSIF (OLD.organization_id, OLD.mode, OLD.created_at, OLD.status, OLD.price_usd, lower(OLD.customer_email))
              IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.created_at, NEW.status, NEW.price_usd, lower(NEW.customer_email)) THEN
          r := (OLD.organization_id, OLD.mode, OLD.created_at, lower(OLD.customer_email))
               IS DISTINCT FROM (NEW.organization_id, NEW.mode, NEW.created_at, lower(NEW.customer_email));
          INSERT INTO analytics_invoice_deltas VALUES
            (OLD.organization_id, OLD.mode, OLD.created_at, OLD.status, OLD.price_usd, lower(OLD.customer_email), -1, r),
            (NEW.organization_id, NEW.mode, NEW.created_at, NEW.status, NEW.price_usd, lower(NEW.customer_email), 1, r);
        END IF;
        RETURN NULL;
      END $$`);

    await q.query(FOLD);
    await q.query(`
      CREATE FUNCTION analytics_dashboard_now(org text, m text, g text, first_bucket timestamptz, end_bucket timestamptz,
                                              span_days integer, previous boolean, today date)
      RETURNS TABLE (kept boolean, payments json, invoices json, customers bigint, top json, new_customers bigint,
                     payment_series text, invoice_series text)
      LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT FROM analytics_payment_deltas d WHERE d.organization_id = org AND d.mode = m)
           OR EXISTS (SELECT FROM analytics_invoice_deltas d WHERE d.organization_id = org AND d.mode = m) THEN
          PERFORM analytics_fold(org, m);
        END IF;
        RETURN QUERY SELECT * FROM analytics_dashboard(org, m, g, first_bucket, end_bucket, span_days, previous, today);
      END $$`);

    await q.query(`ALTER FUNCTION analytics_rebuild(text) RENAME TO analytics_rebuild_rows`);
    await q.query(`
      CREATE FUNCTION analytics_rebuild(org text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- The organization's folds first (they lock the anchor, then the appended tables), then
        -- writers in flight: once the lock is granted every appended change is committed, and
        -- later writers' rows are not in what this transaction reads.
        PERFORM FROM analytics_window_anchors WHERE organization_id = org ORDER BY mode FOR UPDATE;
        LOCK TABLE analytics_payment_deltas, analytics_invoice_deltas IN SHARE MODE;
        DELETE FROM analytics_payment_deltas WHERE organization_id = org;
        DELETE FROM analytics_invoice_deltas WHERE organization_id = org;
        PERFORM analytics_rebuild_rows(org);
      END $$`);

    // Whatever the old triggers left is in the rollup rows already; nothing is appended yet.
  }

  async down(q: QueryRunner): Promise<void> {
    // Fold what is appended, then give the rows back to the per-row triggers.
    await q.query(`LOCK TABLE payments, invoices IN SHARE MODE`);
    await q.query(`SELECT analytics_fold(organization_id, mode) FROM (
                     SELECT organization_id, mode FROM analytics_payment_deltas UNION SELECT organization_id, mode FROM analytics_invoice_deltas
                   ) s ORDER BY s.organization_id, s.mode`);
    await q.query(`DROP FUNCTION analytics_rebuild(text)`);
    await q.query(`ALTER FUNCTION analytics_rebuild_rows(text) RENAME TO analytics_rebuild`);
    await q.query(`DROP FUNCTION analytics_dashboard_now(text, text, text, timestamptz, timestamptz, integer, boolean, date)`);
    await q.query(`DROP FUNCTION analytics_fold(text, text, integer)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_payments_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
      CREATE OR REPLACE FUNCTION analytics_invoices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
    await q.query(`DROP TABLE analytics_invoice_deltas`);
    await q.query(`DROP TABLE analytics_payment_deltas`);
  }
}

/**
 * analytics_fold(org, mode[, max_rows]): folds the organization's appended changes (at most max_rows
 * of each table when given) into its rollup rows and returns how many it folded. The anchor row (FOR
 * UPDATE) makes the folds and window rolls of one organization run one at a time, so the kept windows
 * always equal the sum of the folded daily buckets of their days. The changes to fold are picked by
 * ctid (rows are never updated; only folds and rebuilds delete them, both after the anchor). Each
 * upsert groups the changes by its key, so it touches a row once, in key order.
 */
const FOLD = `
  CREATE FUNCTION analytics_fold(org text, m text, max_rows integer DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    a date;
    pd analytics_payment_deltas[];
    idl analytics_invoice_deltas[];
  BEGIN
    INSERT INTO analytics_window_anchors (organization_id, mode, anchor_day) VALUES (org, m, NULL) ON CONFLICT DO NOTHING;
    SELECT w.anchor_day INTO a FROM analytics_window_anchors w WHERE w.organization_id = org AND w.mode = m FOR UPDATE;
    WITH d AS (DELETE FROM analytics_payment_deltas x
                WHERE x.ctid = ANY (ARRAY(SELECT y.ctid FROM analytics_payment_deltas y WHERE y.organization_id = org AND y.mode = m LIMIT max_rows))
               RETURNING x.*)
    SELECT array_agg(d::analytics_payment_deltas) INTO pd FROM d;
    WITH d AS (DELETE FROM analytics_invoice_deltas x
                WHERE x.ctid = ANY (ARRAY(SELECT y.ctid FROM analytics_invoice_deltas y WHERE y.organization_id = org AND y.mode = m LIMIT max_rows))
               RETURNING x.*)
    SELECT array_agg(d::analytics_invoice_deltas) INTO idl FROM d;

    IF pd IS NOT NULL THEN
      INSERT INTO analytics_payment_buckets AS b (organization_id, mode, grain, bucket, provider_id, currency, status, payments_count, volume_usd)
      SELECT org, m, g.grain, date_trunc(g.grain, d.happened_at, 'UTC') AS bucket, d.provider_id, d.currency, d.status,
             sum(d.sign), sum(d.sign * d.price_usd)
        FROM unnest(pd) d CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
       GROUP BY 3, 4, 5, 6, 7
      HAVING sum(d.sign) <> 0 OR sum(d.sign * d.price_usd) <> 0
       ORDER BY 3, 4, 5, 6, 7
      ON CONFLICT (organization_id, mode, grain, bucket, provider_id, currency, status) DO UPDATE
         SET payments_count = b.payments_count + EXCLUDED.payments_count, volume_usd = b.volume_usd + EXCLUDED.volume_usd;
      INSERT INTO analytics_payment_series AS b (organization_id, mode, grain, bucket, completed_count, volume_usd)
      SELECT org, m, g.grain, date_trunc(g.grain, d.happened_at, 'UTC'), sum(d.sign), sum(d.sign * d.price_usd)
        FROM unnest(pd) d CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
       WHERE d.status = 'COMPLETED'
       GROUP BY 3, 4
      HAVING sum(d.sign) <> 0 OR sum(d.sign * d.price_usd) <> 0
       ORDER BY 3, 4
      ON CONFLICT (organization_id, mode, grain, bucket) DO UPDATE
         SET completed_count = b.completed_count + EXCLUDED.completed_count, volume_usd = b.volume_usd + EXCLUDED.volume_usd;
      IF a IS NOT NULL THEN
        INSERT INTO analytics_payment_windows AS w (organization_id, mode, span, prev, provider_id, currency, status, payments_count, volume_usd)
        SELECT org, m, x.span, x.prev, d.provider_id, d.currency, d.status, sum(d.sign), sum(d.sign * d.price_usd)
          FROM unnest(pd) d CROSS JOIN LATERAL analytics_windows_of(a, (d.happened_at AT TIME ZONE 'UTC')::date) AS x
         GROUP BY 3, 4, 5, 6, 7
        HAVING sum(d.sign) <> 0 OR sum(d.sign * d.price_usd) <> 0
         ORDER BY 3, 4, 5, 6, 7
        ON CONFLICT (organization_id, mode, span, prev, provider_id, currency, status) DO UPDATE
           SET payments_count = w.payments_count + EXCLUDED.payments_count, volume_usd = w.volume_usd + EXCLUDED.volume_usd;
      END IF;
    END IF;

    IF idl IS NOT NULL THEN
      INSERT INTO analytics_invoice_buckets AS b (organization_id, mode, grain, bucket, status, invoices_count, price_usd_sum)
      SELECT org, m, g.grain, date_trunc(g.grain, d.created_at, 'UTC'), d.status, sum(d.sign), sum(d.sign * d.price_usd)
        FROM unnest(idl) d CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
       GROUP BY 3, 4, 5
      HAVING sum(d.sign) <> 0 OR sum(d.sign * d.price_usd) <> 0
       ORDER BY 3, 4, 5
      ON CONFLICT (organization_id, mode, grain, bucket, status) DO UPDATE
         SET invoices_count = b.invoices_count + EXCLUDED.invoices_count, price_usd_sum = b.price_usd_sum + EXCLUDED.price_usd_sum;
      INSERT INTO analytics_invoice_series AS b (organization_id, mode, grain, bucket, invoices_count)
      SELECT org, m, g.grain, date_trunc(g.grain, d.created_at, 'UTC'), sum(d.sign)
        FROM unnest(idl) d CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
       GROUP BY 3, 4
      HAVING sum(d.sign) <> 0
       ORDER BY 3, 4
      ON CONFLICT (organization_id, mode, grain, bucket) DO UPDATE SET invoices_count = b.invoices_count + EXCLUDED.invoices_count;
      INSERT INTO analytics_customer_buckets AS b (organization_id, mode, grain, bucket, customer_email, invoices_count, paid_count, paid_volume_usd)
      SELECT org, m, g.grain, date_trunc(g.grain, d.created_at, 'UTC'), d.customer_email, sum(d.sign),
             coalesce(sum(d.sign) FILTER (WHERE d.status = 'COMPLETED'), 0), coalesce(sum(d.sign * d.price_usd) FILTER (WHERE d.status = 'COMPLETED'), 0)
        FROM unnest(idl) d CROSS JOIN (VALUES ('day'), ('hour')) AS g(grain)
       WHERE d.customer_email IS NOT NULL
       GROUP BY 3, 4, 5
      HAVING sum(d.sign) <> 0 OR sum(d.sign) FILTER (WHERE d.status = 'COMPLETED') <> 0
          OR sum(d.sign * d.price_usd) FILTER (WHERE d.status = 'COMPLETED') <> 0
       ORDER BY 3, 4, 5
      ON CONFLICT (organization_id, mode, grain, bucket, customer_email) DO UPDATE
         SET invoices_count = b.invoices_count + EXCLUDED.invoices_count, paid_count = b.paid_count + EXCLUDED.paid_count,
             paid_volume_usd = b.paid_volume_usd + EXCLUDED.paid_volume_usd;
      IF a IS NOT NULL THEN
        INSERT INTO analytics_invoice_windows AS w (organization_id, mode, span, prev, status, invoices_count, price_usd_sum)
        SELECT org, m, x.span, x.prev, d.status, sum(d.sign), sum(d.sign * d.price_usd)
          FROM unnest(idl) d CROSS JOIN LATERAL analytics_windows_of(a, (d.created_at AT TIME ZONE 'UTC')::date) AS x
         GROUP BY 3, 4, 5
        HAVING sum(d.sign) <> 0 OR sum(d.sign * d.price_usd) <> 0
         ORDER BY 3, 4, 5
        ON CONFLICT (organization_id, mode, span, prev, status) DO UPDATE
           SET invoices_count = w.invoices_count + EXCLUDED.invoices_count, price_usd_sum = w.price_usd_sum + EXCLUDED.price_usd_sum;
        INSERT INTO analytics_customer_windows AS w (organization_id, mode, span, prev, customer_email, invoices_count, paid_count, paid_volume_usd)
        SELECT org, m, x.span, x.prev, d.customer_email, sum(d.sign),
               coalesce(sum(d.sign) FILTER (WHERE d.status = 'COMPLETED'), 0),
               coalesce(sum(d.sign * d.price_usd) FILTER (WHERE d.status = 'COMPLETED'), 0)
          FROM unnest(idl) d CROSS JOIN LATERAL analytics_windows_of(a, (d.created_at AT TIME ZONE 'UTC')::date) AS x
         WHERE d.customer_email IS NOT NULL
         GROUP BY 3, 4, 5
        HAVING sum(d.sign) <> 0 OR sum(d.sign) FILTER (WHERE d.status = 'COMPLETED') <> 0
            OR sum(d.sign * d.price_usd) FILTER (WHERE d.status = 'COMPLETED') <> 0
         ORDER BY 3, 4, 5
        ON CONFLICT (organization_id, mode, span, prev, customer_email) DO UPDATE
           SET invoices_count = w.invoices_count + EXCLUDED.invoices_count, paid_count = w.paid_count + EXCLUDED.paid_count,
               paid_volume_usd = w.paid_volume_usd + EXCLUDED.paid_volume_usd;
      END IF;
      -- First invoices: recomputed from the invoices when an invoice left a customer (deleted, or
      -- its created_at or email changed), otherwise the earliest appended insert, if earlier.
      PERFORM analytics_refresh_customer(org, m, c.e)
         FROM (SELECT d.customer_email AS e FROM unnest(idl) d WHERE d.customer_email IS NOT NULL
                GROUP BY 1 HAVING bool_or(d.refresh) ORDER BY 1) c;
      PERFORM analytics_set_first(org, m, c.e, c.first_at, true)
         FROM (SELECT d.customer_email AS e, min(d.created_at) FILTER (WHERE d.sign > 0) AS first_at FROM unnest(idl) d
                WHERE d.customer_email IS NOT NULL GROUP BY 1 HAVING NOT bool_or(d.refresh) ORDER BY 1) c
        WHERE c.first_at IS NOT NULL
          -- Most customers' first invoice is already earlier; only folds write this table and they
          -- hold the anchor, so reading it without a lock is safe.
          AND NOT EXISTS (SELECT FROM analytics_customers x
                           WHERE x.organization_id = org AND x.mode = m AND x.customer_email = c.e AND x.first_invoice_at <= c.first_at);
    END IF;
    RETURN coalesce(cardinality(pd), 0) + coalesce(cardinality(idl), 0);
  END $$`;
