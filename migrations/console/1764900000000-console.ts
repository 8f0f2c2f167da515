import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The management console's own tables (decisions §25): the organization's people, their sessions,
 * the one-time links that let them set a password, and the audit log of console and API actions.
 * Secrets (session tokens, link tokens) are kept only as SHA-256 hashes; passwords as argon2id.
 */
export class Console1764900000000 implements MigrationInterface {
  name = 'Console1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE console_members (
        id              text PRIMARY KEY,
        organization_id text NOT NULL,
        email           text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
        name            text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
        role            text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'analyst', 'support')),
        password_hash   text,
        created_at      timestamptz NOT NULL DEFAULT now(),
        last_sign_in_at timestamptz,
        failed_attempts integer NOT NULL DEFAULT 0,
        locked_until    timestamptz,
        UNIQUE (organization_id, email)
      )`);
    await q.query(`CREATE INDEX console_members_email_idx ON console_members (email)`);
    await q.query(`
      CREATE TABLE console_sessions (
        token_hash      text PRIMARY KEY,
        member_id       text NOT NULL REFERENCES console_members(id) ON DELETE CASCADE,
        csrf_token      text NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        last_seen_at    timestamptz NOT NULL DEFAULT now(),
        ip              text
      )`);
    await q.query(`CREATE INDEX console_sessions_member_idx ON console_sessions (member_id)`);
    await q.query(`
      CREATE TABLE console_links (
        token_hash  text PRIMARY KEY,
        member_id   text NOT NULL REFERENCES console_members(id) ON DELETE CASCADE,
        kind        text NOT NULL CHECK (kind IN ('invite', 'reset')),
        expires_at  timestamptz NOT NULL,
        used_at     timestamptz
      )`);
    await q.query(`
      CREATE TABLE console_audit_log (
        id              text PRIMARY KEY,
        organization_id text NOT NULL,
        mode            text CHECK (mode IN ('test', 'live')),
        actor_type      text NOT NULL CHECK (actor_type IN ('member', 'key')),
        actor_id        text NOT NULL,
        action          text NOT NULL,
        target          text,
        ip              text,
        created_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX console_audit_log_org_idx ON console_audit_log (organization_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_audit_log`);
    await q.query(`DROP TABLE console_links`);
    await q.query(`DROP TABLE console_sessions`);
    await q.query(`DROP TABLE console_members`);
  }
}
