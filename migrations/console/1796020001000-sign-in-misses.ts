import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed sign-ins of emails no member signs in with (unknown, or invited without a password yet), counted as
 * a member's are: after five the email is "locked" for 15 minutes like a member, so the answer never tells
 * whether an email belongs to a member. Keyed by the SHA-256 of the normalized email; rows untouched for
 * 30 days are removed by later misses (console-auth.service.ts).
 */
export class SignInMisses1796020001000 implements MigrationInterface {
  name = 'SignInMisses1796020001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE console_sign_in_misses (
        email_hash      text PRIMARY KEY,
        failed_attempts integer NOT NULL,
        locked_until    timestamptz,
        updated_at      timestamptz NOT NULL
      )`,
    );
    await q.query(`CREATE INDEX console_sign_in_misses_updated_idx ON console_sign_in_misses (updated_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_sign_in_misses`);
  }
}
