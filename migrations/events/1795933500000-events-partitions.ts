import { MigrationInterface, QueryRunner } from 'typeorm';
import { analyzeFilled, createMonthPartitions, monthsFromNow, monthsOfIds } from '../shared/support/month-partitions';

/**
 * The events outbox that stays small (docs/performance.md, "Tables that stay small").
 *
 * - `events` becomes partitioned by range of its id (`event_<UUIDv7>`, ordered by the time it was made),
 *   one partition a month, with a default partition for ids no month covers (the retention job moves them
 *   into their month). The id is the partition key, so the primary key stays `(id)`, and a read by id
 *   touches one partition. The indexes are the same, made on every partition: the list's
 *   `(organization_id, mode, created_at DESC, id DESC)`, `(organization_id, mode, type, created_at DESC)` and
 *   by object `(organization_id, mode, data.object.id, created_at DESC, id DESC)`, and the durable handlers'
 *   commit order `(transaction_id, position)`.
 * - `position` (commit order within a transaction) comes from a plain sequence (a partitioned table takes
 *   no identity column in PostgreSQL 15), set past every value given so far; `transaction_id` keeps its
 *   default, the writer's transaction. Neither changes for the rows copied, so every cursor stays where it was.
 * - The webhook deliveries' and attempts' foreign keys to `events` go (a key to a partitioned table must
 *   hold its partition key); the retention job keeps an event while a delivery of it is kept instead.
 *
 * Partitions are made here for every month that holds events and for this month and the two after it, so
 * the rows land in their months at once and the first retention pass has nothing to move. The retention
 * job (src/shared/db/partition-retention.ts) then creates months ahead and drops those older than
 * EVENTS_RETENTION_DAYS that every durable handler has read and no webhook delivery still holds.
 * Rows are copied here, in this transaction; nothing is lost.
 */
export class EventsPartitions1795933500000 implements MigrationInterface {
  name = 'EventsPartitions1795933500000';

  async up(q: QueryRunner): Promise<void> {
    await dropEventKeys(q);
    await q.query(`ALTER TABLE events RENAME TO events_unpartitioned`);
    await q.query(`ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey`);
    for (const index of ['events_scope_created_idx', 'events_scope_type_created_idx', 'events_scope_object_created_idx', 'events_commit_order_idx']) {
      await q.query(`ALTER INDEX ${index} RENAME TO ${index.replace(/^events_/, 'events_unpartitioned_')}`);
    }

    await q.query(`CREATE SEQUENCE events_position AS bigint`);
    await q.query(`
      CREATE TABLE events (
        id              text NOT NULL,
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        type            text NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
        data            jsonb NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        position        bigint NOT NULL DEFAULT nextval('events_position'),
        PRIMARY KEY (id)
      ) PARTITION BY RANGE (id)`);
    await q.query(`ALTER SEQUENCE events_position OWNED BY events.position`);
    await q.query(`CREATE INDEX events_scope_created_idx ON events (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_scope_type_created_idx ON events (organization_id, mode, type, created_at DESC)`);
    await q.query(`CREATE INDEX events_scope_object_created_idx ON events (organization_id, mode, ((data -> 'object' ->> 'id')), created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_commit_order_idx ON events (transaction_id, position)`);
    await q.query(`CREATE TABLE events_default PARTITION OF events DEFAULT`);
    await createMonthPartitions(q, 'events', 'event_', [...(await monthsOfIds(q, 'events_unpartitioned', 'id', 'event_')), ...(await monthsFromNow(q, 2))]);

    await q.query(`
      INSERT INTO events (id, organization_id, mode, type, data, created_at, transaction_id, position)
      SELECT id, organization_id, mode, type, data, created_at, transaction_id, position FROM events_unpartitioned`);
    await q.query(`SELECT setval('events_position', coalesce((SELECT max(position) FROM events_unpartitioned), 0) + 1, false)`);
    await q.query(`DROP TABLE events_unpartitioned`);
    await analyzeFilled(q, 'events');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE events_unpartitioned AS SELECT id, organization_id, mode, type, data, created_at, transaction_id, position FROM events`);
    await q.query(`DROP TABLE events`);
    await q.query(`ALTER TABLE events_unpartitioned RENAME TO events`);
    await q.query(`ALTER TABLE events ADD PRIMARY KEY (id), ADD FOREIGN KEY (organization_id) REFERENCES organizations(id)`);
    await q.query(`ALTER TABLE events ADD CHECK (mode IN ('test', 'live')), ADD CHECK (length(type) BETWEEN 1 AND 100)`);
    await q.query(`ALTER TABLE events ALTER COLUMN id SET NOT NULL, ALTER COLUMN organization_id SET NOT NULL, ALTER COLUMN mode SET NOT NULL`);
    await q.query(`ALTER TABLE events ALTER COLUMN type SET NOT NULL, ALTER COLUMN data SET NOT NULL`);
    await q.query(`ALTER TABLE events ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN created_at SET DEFAULT now()`);
    await q.query(`ALTER TABLE events ALTER COLUMN transaction_id SET NOT NULL, ALTER COLUMN transaction_id SET DEFAULT pg_current_xact_id()`);
    await q.query(`ALTER TABLE events ALTER COLUMN position SET NOT NULL`);
    await q.query(`ALTER TABLE events ALTER COLUMN position ADD GENERATED ALWAYS AS IDENTITY`);
    await q.query(`SELECT setval(pg_get_serial_sequence('events', 'position'), coalesce((SELECT max(position) FROM events), 0) + 1, false)`);
    await q.query(`CREATE INDEX events_scope_created_idx ON events (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_scope_type_created_idx ON events (organization_id, mode, type, created_at DESC)`);
    await q.query(`CREATE INDEX events_scope_object_created_idx ON events (organization_id, mode, ((data -> 'object' ->> 'id')), created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX events_commit_order_idx ON events (transaction_id, position)`);
    await q.query(`ALTER TABLE webhook_deliveries ADD FOREIGN KEY (event_id) REFERENCES events(id)`);
    await q.query(`ALTER TABLE webhook_attempts ADD FOREIGN KEY (event_id) REFERENCES events(id)`);
  }
}

/** Every other table's foreign key to `events` (the webhook deliveries' and attempts'), whatever its name. */
async function dropEventKeys(q: QueryRunner): Promise<void> {
  const keys: Array<{ tbl: string; con: string }> = await q.query(
    `SELECT conrelid::regclass::text AS tbl, conname AS con FROM pg_constraint WHERE contype = 'f' AND confrelid = 'events'::regclass AND conrelid <> 'events'::regclass`,
  );
  for (const k of keys) await q.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT "${k.con.replace(/"/g, '""')}"`);
}
