import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each membership's password was last set (through a link). Sign-in tries an email's memberships with the
 * most recently set password first (console-auth.service.ts): a membership whose password someone else chose a
 * moment ago, an admin who invited that email to their own organization, say, is tried before the others and
 * answers a guess itself, so the guess is never checked against another organization's membership for free.
 * Passwords set before this migration count as set when their membership was made.
 */
export class MemberPasswordSetAt1796020000600 implements MigrationInterface {
  name = 'MemberPasswordSetAt1796020000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE console_members ADD COLUMN password_set_at timestamptz`);
    await q.query(`UPDATE console_members SET password_set_at = created_at WHERE password_hash IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE console_members DROP COLUMN password_set_at`);
  }
}
