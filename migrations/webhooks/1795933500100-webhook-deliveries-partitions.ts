import { MigrationInterface, QueryRunner } from 'typeorm';
import { analyzeFilled, createMonthPartitions, monthsFromNow, monthsOfIds } from '../shared/support/month-partitions';

/**
 * Webhook deliveries that stay small (docs/performance.md, "Tables that stay small").
 *
 * - `webhook_deliveries` and `webhook_attempts` become partitioned by range of their event's id
 *   (`event_<UUIDv7>`), one partition a month, the same months as `events`: a delivery and its attempts
 *   live in the month of the event they carry, so the fan-out's check for an event's delivery and a read of
 *   an event's attempts touch one partition, and a month of deliveries goes when nothing in it is pending.
 *   Each has a default partition for event ids no month covers (the retention job moves them into their month).
 * - Every unique key holds the partition key: the deliveries' key is `(event_id, id)`, the attempts'
 *   `(event_id, id)` and `(event_id, delivery_id, attempt_number)` (a delivery's attempts are in its
 *   event's month, so one attempt number per delivery holds as before). Delivery and attempt ids are
 *   UUIDv7s made here; nothing outside these tables needs them unique on their own.
 * - The attempts' foreign key to the deliveries goes (a key to a partitioned table must hold its partition
 *   key, and a month's deliveries and attempts are dropped together); the keys to organizations and
 *   endpoints stay. The other indexes are the same, made on every partition: the dispatcher's due deliveries
 *   `(next_attempt_at) WHERE status = 'pending'`, an endpoint's deliveries `(endpoint_id, status)` and the
 *   attempts list `(endpoint_id, created_at DESC, id DESC)`; the deliveries' `(event_id)` is their key's first column.
 *
 * Partitions are made here for every month that holds deliveries or attempts and for this month and the two
 * after it. The retention job creates months ahead and drops those older than WEBHOOK_DELIVERIES_RETENTION_DAYS
 * that hold no pending delivery. Rows are copied here, in this transaction; nothing is lost.
 */
export class WebhookDeliveriesPartitions1795933500100 implements MigrationInterface {
  name = 'WebhookDeliveriesPartitions1795933500100';

  async up(q: QueryRunner): Promise<void> {
    const months = [
      ...(await monthsOfIds(q, 'webhook_deliveries', 'event_id', 'event_')),
      ...(await monthsOfIds(q, 'webhook_attempts', 'event_id', 'event_')),
      ...(await monthsFromNow(q, 2)),
    ];
    await q.query(`ALTER TABLE webhook_attempts RENAME TO webhook_attempts_unpartitioned`);
    await q.query(`ALTER TABLE webhook_attempts_unpartitioned RENAME CONSTRAINT webhook_attempts_pkey TO webhook_attempts_unpartitioned_pkey`);
    await q.query(
      `ALTER TABLE webhook_attempts_unpartitioned RENAME CONSTRAINT webhook_attempts_delivery_id_attempt_number_key TO webhook_attempts_unpartitioned_delivery_id_attempt_number_key`,
    );
    await q.query(`ALTER INDEX webhook_attempts_endpoint_idx RENAME TO webhook_attempts_unpartitioned_endpoint_idx`);
    await q.query(`ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_unpartitioned`);
    await q.query(`ALTER TABLE webhook_deliveries_unpartitioned RENAME CONSTRAINT webhook_deliveries_pkey TO webhook_deliveries_unpartitioned_pkey`);
    for (const index of ['webhook_deliveries_due_idx', 'webhook_deliveries_endpoint_idx', 'webhook_deliveries_event_idx']) {
      await q.query(`ALTER INDEX ${index} RENAME TO ${index.replace(/^webhook_deliveries_/, 'webhook_deliveries_unpartitioned_')}`);
    }

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id                text NOT NULL,
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        endpoint_id       text NOT NULL REFERENCES webhook_endpoints(id),
        event_id          text NOT NULL,
        status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        attempt_count     integer NOT NULL DEFAULT 0,
        next_attempt_at   timestamptz,
        last_attempt_at   timestamptz,
        last_error        text,
        created_at        timestamptz NOT NULL DEFAULT now(),
        completed_at      timestamptz,
        PRIMARY KEY (event_id, id)
      ) PARTITION BY RANGE (event_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, status)`);
    await q.query(`CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries DEFAULT`);
    await q.query(`
      CREATE TABLE webhook_attempts (
        id               text NOT NULL,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        endpoint_id      text NOT NULL REFERENCES webhook_endpoints(id),
        delivery_id      text NOT NULL,
        event_id         text NOT NULL,
        attempt_number   integer NOT NULL CHECK (attempt_number >= 1),
        url              text NOT NULL,
        succeeded        boolean NOT NULL,
        response_status  integer,
        response_body    text,
        error            text,
        duration_ms      integer NOT NULL,
        next_attempt_at  timestamptz,
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (event_id, id),
        UNIQUE (event_id, delivery_id, attempt_number)
      ) PARTITION BY RANGE (event_id)`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, created_at DESC, id DESC)`);
    await q.query(`CREATE TABLE webhook_attempts_default PARTITION OF webhook_attempts DEFAULT`);
    await createMonthPartitions(q, 'webhook_deliveries', 'event_', months);
    await createMonthPartitions(q, 'webhook_attempts', 'event_', months);

    await q.query(`
      INSERT INTO webhook_deliveries (id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, last_attempt_at, last_error, created_at, completed_at)
      SELECT id, organization_id, mode, endpoint_id, event_id, status, attempt_count, next_attempt_at, last_attempt_at, last_error, created_at, completed_at
        FROM webhook_deliveries_unpartitioned`);
    await q.query(`
      INSERT INTO webhook_attempts (id, organization_id, mode, endpoint_id, delivery_id, event_id, attempt_number, url, succeeded,
                                    response_status, response_body, error, duration_ms, next_attempt_at, created_at)
      SELECT id, organization_id, mode, endpoint_id, delivery_id, event_id, attempt_number, url, succeeded,
             response_status, response_body, error, duration_ms, next_attempt_at, created_at
        FROM webhook_attempts_unpartitioned`);
    await q.query(`DROP TABLE webhook_attempts_unpartitioned`);
    await q.query(`DROP TABLE webhook_deliveries_unpartitioned`);
    await analyzeFilled(q, 'webhook_deliveries');
    await analyzeFilled(q, 'webhook_attempts');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_deliveries_unpartitioned AS SELECT * FROM webhook_deliveries`);
    await q.query(`CREATE TABLE webhook_attempts_unpartitioned AS SELECT * FROM webhook_attempts`);
    await q.query(`DROP TABLE webhook_attempts, webhook_deliveries`);
    await q.query(`ALTER TABLE webhook_deliveries_unpartitioned RENAME TO webhook_deliveries`);
    await q.query(`ALTER TABLE webhook_attempts_unpartitioned RENAME TO webhook_attempts`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD PRIMARY KEY (id),
        ADD FOREIGN KEY (organization_id) REFERENCES organizations(id),
        ADD FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id),
        ADD CHECK (mode IN ('test', 'live')),
        ADD CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        ALTER COLUMN organization_id SET NOT NULL, ALTER COLUMN mode SET NOT NULL, ALTER COLUMN endpoint_id SET NOT NULL,
        ALTER COLUMN event_id SET NOT NULL, ALTER COLUMN status SET NOT NULL,
        ALTER COLUMN attempt_count SET NOT NULL, ALTER COLUMN attempt_count SET DEFAULT 0,
        ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN created_at SET DEFAULT now()`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, status)`);
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`);
    await q.query(`
      ALTER TABLE webhook_attempts
        ADD PRIMARY KEY (id),
        ADD UNIQUE (delivery_id, attempt_number),
        ADD FOREIGN KEY (organization_id) REFERENCES organizations(id),
        ADD FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id),
        ADD FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id),
        ADD CHECK (mode IN ('test', 'live')),
        ADD CHECK (attempt_number >= 1),
        ALTER COLUMN organization_id SET NOT NULL, ALTER COLUMN mode SET NOT NULL, ALTER COLUMN endpoint_id SET NOT NULL,
        ALTER COLUMN delivery_id SET NOT NULL, ALTER COLUMN event_id SET NOT NULL, ALTER COLUMN attempt_number SET NOT NULL,
        ALTER COLUMN url SET NOT NULL, ALTER COLUMN succeeded SET NOT NULL, ALTER COLUMN duration_ms SET NOT NULL,
        ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN created_at SET DEFAULT now()`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, created_at DESC, id DESC)`);
    // The keys to events come back with the events table's own conversion (events/1795933500000-events-partitions), undone next.
  }
}
