import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalog: products, their billing schemas, usage tiers (configurations) and metrics. Products,
 * schemas and configurations are versioned: a replace writes new rows that share the old rows'
 * version_group_id and marks the old rows inactive. Every row carries organization and mode.
 */
export class Catalog1763700100000 implements MigrationInterface {
  name = 'Catalog1763700100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE products (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        version_group_id text NOT NULL,
        version          integer NOT NULL CHECK (version >= 1),
        is_active        boolean NOT NULL,
        name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        description      text NOT NULL DEFAULT '',
        image_id         text,
        metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz
      )`);
    // The list: active versions of one organization and mode, newest first.
    await q.query(`CREATE INDEX products_scope_list_idx ON products (organization_id, mode, created_at DESC, id DESC) WHERE is_active`);
    await q.query(`CREATE INDEX products_scope_all_idx ON products (organization_id, mode, created_at DESC, id DESC)`);
    // At most one active version per product, and versions numbered once per group.
    await q.query(`CREATE UNIQUE INDEX products_one_active_version_idx ON products (version_group_id) WHERE is_active`);
    await q.query(`CREATE UNIQUE INDEX products_group_version_idx ON products (version_group_id, version)`);

    await q.query(`
      CREATE TABLE metrics (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        metric_key       text NOT NULL CHECK (length(metric_key) BETWEEN 1 AND 100),
        name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        aggregation_type text NOT NULL CHECK (aggregation_type IN ('SUM', 'COUNT', 'MAX', 'UNIQUE_COUNT', 'LATEST')),
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX metrics_scope_key_idx ON metrics (organization_id, mode, metric_key)`);

    await q.query(`
      CREATE TABLE billing_schemas (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        product_id       text NOT NULL REFERENCES products(id),
        version_group_id text NOT NULL,
        is_active        boolean NOT NULL,
        position         integer NOT NULL CHECK (position >= 0),
        name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        description      text NOT NULL DEFAULT '',
        type             text NOT NULL CHECK (type IN ('ONE_TIME', 'RECURRING')),
        currency         text NOT NULL,
        base_price       numeric(78,30) NOT NULL CHECK (base_price >= 0),
        interval_type    text CHECK (interval_type IN ('DAY', 'WEEK', 'MONTH', 'YEAR')),
        interval_count   integer CHECK (interval_count >= 1),
        payment_type     text CHECK (payment_type IN ('ADVANCE', 'ARREARS')),
        renew_type       text CHECK (renew_type IN ('CALENDAR', 'ANNIVERSARY')),
        billing_type     text CHECK (billing_type IN ('FULL', 'PRORATED')),
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz,
        CONSTRAINT billing_schemas_recurring_fields CHECK (
          (type = 'ONE_TIME' AND interval_type IS NULL AND interval_count IS NULL AND payment_type IS NULL
            AND renew_type IS NULL AND billing_type IS NULL)
          OR (type = 'RECURRING' AND interval_type IS NOT NULL AND interval_count IS NOT NULL
            AND payment_type IS NOT NULL AND renew_type IS NOT NULL AND billing_type IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX billing_schemas_product_position_idx ON billing_schemas (product_id, position)`);
    await q.query(`CREATE INDEX billing_schemas_scope_group_idx ON billing_schemas (organization_id, mode, version_group_id)`);

    await q.query(`
      CREATE TABLE billing_configurations (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        schema_id        text NOT NULL REFERENCES billing_schemas(id),
        version_group_id text NOT NULL,
        is_active        boolean NOT NULL,
        position         integer NOT NULL CHECK (position >= 0),
        starts_at        numeric(78,30) NOT NULL CHECK (starts_at >= 0),
        ends_at          numeric(78,30) CHECK (ends_at > starts_at),
        price_per_unit   numeric(78,30) NOT NULL CHECK (price_per_unit >= 0),
        metric_id        text NOT NULL REFERENCES metrics(id),
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX billing_configurations_schema_position_idx ON billing_configurations (schema_id, position)`);
    await q.query(`CREATE INDEX billing_configurations_metric_idx ON billing_configurations (metric_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE billing_configurations`);
    await q.query(`DROP TABLE billing_schemas`);
    await q.query(`DROP TABLE metrics`);
    await q.query(`DROP TABLE products`);
  }
}
