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
 *
 * A change applies the old row's contribution with sign -1 and the new row's with +1. Rollup rows
 * are locked in one order (day before hour, old key before new key when the old key sorts first)
 * so that concurrent writers wait for each other instead of deadlocking. Rows that fall to zero
 * stay (they add nothing). TRUNCATE of payments or invoices is not followed.
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

    await q.query(`
      CREATE FUNCTION analytics_apply_payment(p payments, sign integer) RETURNS void LANGUAGE plpgsql AS $$
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
        paid integer := CASE WHEN i.status = 'COMPLETED' THEN 1 ELSE 0 END;
      BEGIN
        INSERT INTO analytics_invoice_buckets AS b (organization_id, mode, grain, bucket, status, invoices_count, price_usd_sum)
        SELECT i.organization_id, i.mode, g.grain, date_trunc(g.grain, i.created_at, 'UTC'), i.status, sign, sign * i.price_usd
          FROM (VALUES (1, 'day'), (2, 'hour')) AS g(ord, grain)
         ORDER BY g.ord
        ON CONFLICT (organization_id, mode, grain, bucket, status) DO UPDATE
           SET invoices_count = b.invoices_count + EXCLUDED.invoices_count,
               price_usd_sum = b.price_usd_sum + EXCLUDED.price_usd_sum;
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
      END $$`);
    // The first invoice of one customer, recomputed from the invoices (after a delete or a change
    // of email or created_at; inserts take the cheaper LEAST path).
    await q.query(`
      CREATE FUNCTION analytics_refresh_customer(org text, m text, email text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        first_at timestamptz;
      BEGIN
        IF email IS NULL THEN RETURN; END IF;
        SELECT min(created_at) INTO first_at FROM invoices
         WHERE organization_id = org AND mode = m AND lower(customer_email) = email;
        IF first_at IS NULL THEN
          DELETE FROM analytics_customers WHERE organization_id = org AND mode = m AND customer_email = email;
        ELSE
          INSERT INTO analytics_customers AS c (organization_id, mode, customer_email, first_invoice_at)
          VALUES (org, m, email, first_at)
          ON CONFLICT (organization_id, mode, customer_email) DO UPDATE SET first_invoice_at = EXCLUDED.first_invoice_at;
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_invoices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM analytics_apply_invoice(NEW, 1);
          IF NEW.customer_email IS NOT NULL THEN
            INSERT INTO analytics_customers AS c (organization_id, mode, customer_email, first_invoice_at)
            VALUES (NEW.organization_id, NEW.mode, lower(NEW.customer_email), NEW.created_at)
            ON CONFLICT (organization_id, mode, customer_email) DO UPDATE
               SET first_invoice_at = LEAST(c.first_invoice_at, EXCLUDED.first_invoice_at);
          END IF;
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
        DELETE FROM analytics_payment_buckets WHERE organization_id = org;
        DELETE FROM analytics_invoice_buckets WHERE organization_id = org;
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
      END $$`);
    // Rows written before this migration.
    await q.query(`SELECT analytics_rebuild(id) FROM organizations`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER analytics_invoices_rollup ON invoices`);
    await q.query(`DROP TRIGGER analytics_payments_rollup ON payments`);
    await q.query(`DROP FUNCTION analytics_rebuild(text)`);
    await q.query(`DROP FUNCTION analytics_invoices_changed()`);
    await q.query(`DROP FUNCTION analytics_refresh_customer(text, text, text)`);
    await q.query(`DROP FUNCTION analytics_apply_invoice(invoices, integer)`);
    await q.query(`DROP FUNCTION analytics_payments_changed()`);
    await q.query(`DROP FUNCTION analytics_apply_payment(payments, integer)`);
    await q.query(`DROP TABLE analytics_customers`);
    await q.query(`DROP TABLE analytics_customer_buckets`);
    await q.query(`DROP TABLE analytics_invoice_buckets`);
    await q.query(`DROP TABLE analytics_payment_buckets`);
  }
}
