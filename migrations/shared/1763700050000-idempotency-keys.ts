import { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored results of creating requests sent with an Idempotency-Key header. */
export class IdempotencyKeys1763700050000 implements MigrationInterface {
  name = 'IdempotencyKeys1763700050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        key             text NOT NULL,
        fingerprint     text NOT NULL,
        state           text NOT NULL CHECK (state IN ('in_flight', 'done')),
        response_status integer,
        response_body   jsonb,
        created_at      timestamptz NOT NULL,
        expires_at      timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
