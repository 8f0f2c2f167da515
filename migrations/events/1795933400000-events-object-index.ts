import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events by the object they carry (`data.object.id`), newest first: the console's invoice page lists the
 * events of an invoice, its payments and refunds (ListEventsQuery's `objectIds`) with an index range per
 * object rather than a walk over the mode's whole history.
 */
export class EventsObjectIndex1795933400000 implements MigrationInterface {
  name = 'EventsObjectIndex1795933400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX events_scope_object_created_idx ON events (organization_id, mode, ((data -> 'object' ->> 'id')), created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX events_scope_object_created_idx`);
  }
}
