import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events (the transactional outbox), webhook endpoints, their deliveries (one per event and
 * endpoint) and the attempts of each delivery.
 */
export class EventsWebhooks1763700600000 implements MigrationInterface {
  name = 'EventsWebhooks1763700600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id              text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        type            text NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
        data            jsonb NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX events_scope_created_idx ON events (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_scope_type_created_idx ON events (organization_id, mode, type, created_at DESC)`);

    await q.query(`
      CREATE TABLE webhook_endpoints (
        id                          text PRIMARY KEY,
        organization_id             text NOT NULL REFERENCES organizations(id),
        mode                        text NOT NULL CHECK (mode IN ('test', 'live')),
        url                         text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
        description                 text CHECK (length(description) <= 500),
        event_types                 text[] NOT NULL CHECK (cardinality(event_types) >= 1),
        secret                      text NOT NULL,
        previous_secret             text,
        previous_secret_expires_at  timestamptz,
        enabled                     boolean NOT NULL DEFAULT true,
        disabled_reason             text,
        consecutive_failures        integer NOT NULL DEFAULT 0,
        created_at                  timestamptz NOT NULL DEFAULT now(),
        updated_at                  timestamptz NOT NULL DEFAULT now(),
        deleted_at                  timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_scope_idx ON webhook_endpoints (organization_id, mode, created_at DESC) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id                text PRIMARY KEY,
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        endpoint_id       text NOT NULL REFERENCES webhook_endpoints(id),
        event_id          text NOT NULL REFERENCES events(id),
        status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        attempt_count     integer NOT NULL DEFAULT 0,
        next_attempt_at   timestamptz,
        last_attempt_at   timestamptz,
        last_error        text,
        created_at        timestamptz NOT NULL DEFAULT now(),
        completed_at      timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, status)`);
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`);

    await q.query(`
      CREATE TABLE webhook_attempts (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        endpoint_id      text NOT NULL REFERENCES webhook_endpoints(id),
        delivery_id      text NOT NULL REFERENCES webhook_deliveries(id),
        event_id         text NOT NULL REFERENCES events(id),
        attempt_number   integer NOT NULL CHECK (attempt_number >= 1),
        url              text NOT NULL,
        succeeded        boolean NOT NULL,
        response_status  integer,
        response_body    text,
        error            text,
        duration_ms      integer NOT NULL,
        next_attempt_at  timestamptz,
        created_at       timestamptz NOT NULL DEFAULT now(),
        UNIQUE (delivery_id, attempt_number)
      )`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
    await q.query(`DROP TABLE events`);
  }
}
