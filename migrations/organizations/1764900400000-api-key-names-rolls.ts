import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys as the console manages them (decisions §25): a name, a roll (a new key, the old one kept
 * working until `expires_at`, the end of its grace period, and `rolled_to` naming its successor),
 * and the time each key was last used.
 *
 * The last-used time lives in its own table: every UPDATE of `api_keys` moves `api_key_revision`
 * (its statement trigger), which makes every process drop its cached keys; a usage write once a
 * minute per key must not do that.
 */
export class ApiKeyNamesRolls1764900400000 implements MigrationInterface {
  name = 'ApiKeyNamesRolls1764900400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN name       text NOT NULL DEFAULT '' CHECK (length(name) <= 100),
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN rolled_to  text REFERENCES api_keys(id)`);
    await q.query(`
      CREATE TABLE api_key_usage (
        key_id       text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        last_used_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_key_usage`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN rolled_to, DROP COLUMN expires_at, DROP COLUMN name`);
  }
}
