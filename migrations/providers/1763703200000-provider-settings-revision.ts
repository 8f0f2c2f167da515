import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revision number that every change to `provider_settings` moves forward (a statement trigger, so
 * no path can forget it: the CLI, another version of the service, an operator's own SQL).
 *
 * The payment path caches each organization's setting for a provider (enabled, required
 * confirmations) instead of reading it for every reported payment. The CLI's provider commands
 * notify every process, which empties its cache; because a notification can be missed without the
 * listener knowing, each process also reads this one-row table every couple of seconds and empties
 * its cache when the number moved (RevisionCheckedCache), as for API keys (api_key_revision).
 */
export class ProviderSettingsRevision1763703200000 implements MigrationInterface {
  name = 'ProviderSettingsRevision1763703200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE provider_settings_revision (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        revision  bigint NOT NULL
      )`);
    await q.query(`INSERT INTO provider_settings_revision (singleton, revision) VALUES (true, 1)`);
    await q.query(`
      CREATE FUNCTION provider_settings_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE provider_settings_revision SET revision = revision + 1 WHERE singleton;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER provider_settings_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON provider_settings
        FOR EACH STATEMENT EXECUTE FUNCTION provider_settings_revision_bump()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER provider_settings_revision ON provider_settings`);
    await q.query(`DROP FUNCTION provider_settings_revision_bump()`);
    await q.query(`DROP TABLE provider_settings_revision`);
  }
}
