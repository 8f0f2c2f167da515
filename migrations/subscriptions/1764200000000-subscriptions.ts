import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions to RECURRING billing schemas (decisions §20), their period invoices and their usage.
 *
 * - `subscriptions`: the schema's recurring terms, currency and base price are copied at creation
 *   (catalog versions never change, but the scheduler then reads one row); `next_invoice_at` is when
 *   the next period invoice (`next_invoice_index`) is due, null once nothing more will be billed. The
 *   scheduler takes due rows with FOR UPDATE SKIP LOCKED through the partial index on it.
 * - `subscription_invoices`: one row per period invoiced, keyed by subscription and period start (with
 *   the invoices' own unique key on the same pair, a period is invoiced once whatever the number of
 *   instances); `outcome` is null until the invoice is paid in full (`paid`) or voided unpaid (`unpaid`).
 * - `usage_events`: keyed by the caller's `id` per organization and mode (a repeat is the same event);
 *   `seq` orders arrivals for LATEST.
 */
export class Subscriptions1764200000000 implements MigrationInterface {
  name = 'Subscriptions1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE subscriptions (
        id                    text PRIMARY KEY,
        organization_id       text NOT NULL REFERENCES organizations(id),
        mode                  text NOT NULL CHECK (mode IN ('test', 'live')),
        product_id            text NOT NULL,
        billing_schema_id     text NOT NULL,
        customer_email        text NOT NULL,
        customer_name         text,
        quantity              integer NOT NULL CHECK (quantity >= 1),
        metadata              jsonb NOT NULL DEFAULT '{}',
        status                text NOT NULL CHECK (status IN ('ACTIVE', 'PAST_DUE', 'CANCELED')),
        currency              text NOT NULL,
        base_price            numeric(78,30) NOT NULL,
        interval_type         text NOT NULL,
        interval_count        integer NOT NULL CHECK (interval_count >= 1),
        payment_type          text NOT NULL,
        renew_type            text NOT NULL,
        billing_type          text NOT NULL,
        starts_at             timestamptz NOT NULL,
        current_period_index  integer NOT NULL,
        current_period_start  timestamptz NOT NULL,
        current_period_end    timestamptz NOT NULL,
        next_invoice_index    integer NOT NULL,
        next_invoice_at       timestamptz,
        latest_invoice_id     text,
        cancel_at_period_end  boolean NOT NULL DEFAULT false,
        canceled_at           timestamptz,
        unpaid_periods        integer NOT NULL DEFAULT 0,
        last_unpaid_index     integer NOT NULL DEFAULT -1,
        created_at            timestamptz NOT NULL,
        updated_at            timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX subscriptions_list ON subscriptions (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX subscriptions_due ON subscriptions (next_invoice_at) WHERE next_invoice_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE subscription_invoices (
        subscription_id  text NOT NULL REFERENCES subscriptions(id),
        period_start     timestamptz NOT NULL,
        period_end       timestamptz NOT NULL,
        period_index     integer NOT NULL,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        invoice_id       text NOT NULL,
        outcome          text CHECK (outcome IN ('paid', 'unpaid')),
        created_at       timestamptz NOT NULL,
        PRIMARY KEY (subscription_id, period_start)
      )`);
    await q.query(`CREATE INDEX subscription_invoices_open ON subscription_invoices (organization_id, mode) WHERE outcome IS NULL`);
    await q.query(`
      CREATE TABLE usage_events (
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        id               text NOT NULL,
        subscription_id  text NOT NULL REFERENCES subscriptions(id),
        metric_key       text NOT NULL,
        value            numeric(78,30) NOT NULL CHECK (value >= 0),
        unique_key       text,
        "timestamp"      timestamptz NOT NULL,
        seq              bigint GENERATED ALWAYS AS IDENTITY,
        created_at       timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, id)
      )`);
    await q.query(`CREATE INDEX usage_events_period ON usage_events (subscription_id, metric_key, "timestamp")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE usage_events`);
    await q.query(`DROP TABLE subscription_invoices`);
    await q.query(`DROP TABLE subscriptions`);
  }
}
