import { MigrationInterface, QueryRunner } from 'typeorm';

export class Organizations1763700000000 implements MigrationInterface {
  name = 'Organizations1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id          text PRIMARY KEY,
        name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        image_url   text,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id              text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        key_hash        text NOT NULL UNIQUE,
        prefix          text NOT NULL,
        read_only       boolean NOT NULL DEFAULT false,
        created_at      timestamptz NOT NULL DEFAULT now(),
        revoked_at      timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_organization_idx ON api_keys (organization_id)`);
    await q.query(`CREATE INDEX api_keys_prefix_idx ON api_keys (prefix) WHERE revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE organizations`);
  }
}
