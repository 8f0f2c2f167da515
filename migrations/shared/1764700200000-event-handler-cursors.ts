import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable event handlers (src/shared/events/durable-handlers.ts): each reads the events in the order
 * their transactions committed, from a cursor of its own.
 *
 * An event row now carries the id of the transaction that wrote it (`transaction_id`, xid8) and a
 * position from a sequence (`position`). A handler reads rows in (transaction_id, position) order,
 * and only rows of transactions older than every transaction still running (below the snapshot's
 * xmin): no row can commit later with a smaller key, so a cursor never passes an event that is not
 * visible yet. Rows written before this migration get transaction 0 (before everything).
 *
 * `event_handler_cursors` holds each handler's cursor: the key of the last event it has handled.
 * The row is also the handler's lock (SELECT ... FOR UPDATE SKIP LOCKED): one instance at a time
 * handles a handler's events. A retention job may only delete events below the lowest cursor.
 */
export class EventHandlerCursors1764700200000 implements MigrationInterface {
  name = 'EventHandlerCursors1764700200000';

  async up(q: QueryRunner): Promise<void> {
    // A constant default first (no rewrite for the rows already there), then the writer's transaction.
    await q.query(`ALTER TABLE events ADD COLUMN transaction_id xid8 NOT NULL DEFAULT '0'`);
    await q.query(`ALTER TABLE events ALTER COLUMN transaction_id SET DEFAULT pg_current_xact_id()`);
    await q.query(`ALTER TABLE events ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY`);
    await q.query(`CREATE INDEX events_commit_order_idx ON events (transaction_id, position)`);
    await q.query(`
      CREATE TABLE event_handler_cursors (
        handler         text PRIMARY KEY CHECK (length(handler) BETWEEN 1 AND 100),
        transaction_id  xid8 NOT NULL,
        position        bigint NOT NULL,
        updated_at      timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_handler_cursors`);
    await q.query(`DROP INDEX events_commit_order_idx`);
    await q.query(`ALTER TABLE events DROP COLUMN position`);
    await q.query(`ALTER TABLE events DROP COLUMN transaction_id`);
  }
}
