import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revision number that every change to `api_keys` (a revoke above all) moves forward, kept by a
 * statement trigger so that no path can forget it: the API, the CLI, another version of the
 * service, an operator's own SQL.
 *
 * Each process caches resolved keys and drops them when PostgreSQL NOTIFY says a key changed. A
 * notification can be missed without the listener noticing (PgBouncer in transaction mode keeps no
 * LISTEN; a half-open socket), so the cache also reads this one-row table every couple of seconds
 * and empties itself when the number moved: a revoked key is refused within that bound even when no
 * notification arrives. A single-row primary-key read costs next to nothing.
 */
export class ApiKeyRevision1763701500000 implements MigrationInterface {
  name = 'ApiKeyRevision1763701500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_key_revision (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        revision  bigint NOT NULL
      )`);
    await q.query(`INSERT INTO api_key_revision (singleton, revision) VALUES (true, 1)`);
    await q.query(`
      CREATE FUNCTION api_key_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE api_key_revision SET revision = revision + 1 WHERE singleton;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER api_keys_revision AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION api_key_revision_bump()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER api_keys_revision ON api_keys`);
    await q.query(`DROP FUNCTION api_key_revision_bump()`);
    await q.query(`DROP TABLE api_key_revision`);
  }
}
