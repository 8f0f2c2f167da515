import { MigrationInterface, QueryRunner } from 'typeorm';

export class Files1763700400000 implements MigrationInterface {
  name = 'Files1763700400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id              text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
        type            text NOT NULL CHECK (type IN ('image', 'video', 'audio', 'document', 'archive', 'general')),
        mime_type       text NOT NULL,
        size            bigint NOT NULL CHECK (size > 0),
        sha256          text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        storage_driver  text NOT NULL CHECK (storage_driver IN ('local', 's3')),
        storage_key     text NOT NULL UNIQUE,
        created_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX files_scope_created_idx ON files (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX files_scope_type_idx ON files (organization_id, mode, type, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files`);
  }
}
