import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test clocks: how far one organization's test mode runs ahead of real time (CLOCK_CONTROL=true,
 * POST /test_helpers/clock). In the database so every instance agrees and a restart keeps it;
 * live mode has no row and never will (the CHECK).
 */
export class TestClocks1763701610000 implements MigrationInterface {
  name = 'TestClocks1763701610000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE test_clocks (
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode = 'test'),
        offset_ms       bigint NOT NULL CHECK (offset_ms >= 0),
        updated_at      timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE test_clocks`);
  }
}
