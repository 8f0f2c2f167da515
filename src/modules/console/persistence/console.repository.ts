import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import { newId } from '../../../shared/ids/ids';
import type { Role } from '../domain/roles';

export interface MemberRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  /** When the password was last set (null: never set). */
  password_set_at: Date | null;
  created_at: Date;
  last_sign_in_at: Date | null;
  failed_attempts: number;
  locked_until: Date | null;
}

export interface SessionRow {
  token_hash: string;
  member_id: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
}

export interface AuditRow {
  id: string;
  organization_id: string;
  mode: Mode | null;
  actor_type: 'member' | 'key';
  actor_id: string;
  action: string;
  target: string | null;
  ip: string | null;
  created_at: Date;
}

export type AuditEntry = Omit<AuditRow, 'id' | 'created_at'>;

/** The console's own tables, and nothing else (other modules are reached through their commands and queries). */
@Injectable()
export class ConsoleRepository {
  private readonly logger = new Logger('ConsoleAudit');

  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async memberById(organizationId: string, id: string): Promise<MemberRow | null> {
    const rows: MemberRow[] = await this.db.query(`SELECT * FROM console_members WHERE organization_id = $1 AND id = $2`, [organizationId, id]);
    return rows[0] ?? null;
  }

  async membersByIdAnyOrg(id: string): Promise<MemberRow[]> {
    return this.db.query(`SELECT * FROM console_members WHERE id = $1`, [id]);
  }

  async memberByEmail(organizationId: string, email: string): Promise<MemberRow | null> {
    const rows: MemberRow[] = await this.db.query(`SELECT * FROM console_members WHERE organization_id = $1 AND email = $2`, [organizationId, email]);
    return rows[0] ?? null;
  }

  /**
   * Every membership of an email (one person may belong to several organizations), the most recently set
   * password first (then those without one, oldest first): the order sign-in tries them in.
   */
  async membersByEmail(email: string): Promise<MemberRow[]> {
    return this.db.query(`SELECT * FROM console_members WHERE email = $1 ORDER BY password_set_at DESC NULLS LAST, created_at, id`, [email]);
  }

  async members(organizationId: string): Promise<MemberRow[]> {
    return this.db.query(`SELECT * FROM console_members WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId]);
  }

  /**
   * A new member with the link of their invitation, in one transaction under the members' lock; null when the
   * email is already a member of the organization (two invitations of one email at once: the second finds the
   * first's row). No one sees the member before the link is stored, so no one can make them an owner or renew
   * their invitation in between: the link is for the role the inviter gave.
   */
  async insertInvitedMember(
    organizationId: string,
    email: string,
    name: string,
    role: Role,
    link: { tokenHash: string; expiresAt: Date },
  ): Promise<MemberRow | null> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [organizationId]);
      const rows: MemberRow[] = await m.query(
        `INSERT INTO console_members (id, organization_id, email, name, role) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (organization_id, email) DO NOTHING RETURNING *`,
        [newId('member'), organizationId, email, name, role],
      );
      if (!rows[0]) return null;
      await m.query(`INSERT INTO console_links (token_hash, member_id, kind, expires_at) VALUES ($1, $2, 'invite', $3)`, [
        link.tokenHash,
        rows[0].id,
        link.expiresAt,
      ]);
      return rows[0];
    });
  }

  /**
   * Renews the invitation of a member who has not set a password yet: gives them `role` and stores
   * the new link, in one transaction under the members' lock. Nothing happens (null) when the member
   * has set a password meanwhile, or is an owner and the inviter is not (an owner's invitation is
   * renewed only by an owner, even if the member was made an owner a moment ago).
   */
  async renewInvitation(
    organizationId: string,
    memberId: string,
    role: Role,
    actor: Role | null,
    link: { tokenHash: string; expiresAt: Date },
  ): Promise<MemberRow | null> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [organizationId]);
      const rows = rowsOf(
        await m.query(
          `UPDATE console_members SET role = $3
            WHERE organization_id = $1 AND id = $2 AND password_hash IS NULL AND ${ownerTouchedBy(actor)} RETURNING *`,
          [organizationId, memberId, role],
        ),
      ) as MemberRow[];
      if (!rows[0]) return null;
      // One live link a member: the one issued for the role as it was is withdrawn (an admin's invitation renewed by an owner as an owner's).
      await m.query(`DELETE FROM console_links WHERE member_id = $1 AND used_at IS NULL`, [memberId]);
      await m.query(`INSERT INTO console_links (token_hash, member_id, kind, expires_at) VALUES ($1, $2, 'invite', $3)`, [
        link.tokenHash,
        memberId,
        link.expiresAt,
      ]);
      return rows[0];
    });
  }

  /**
   * Changes a member's role, or removes the member (`role` null), as `actor` (an owner, or an admin
   * who never touches an owner), in one statement under the members' lock that also keeps the
   * last-owner rule: an owner who has set a password (one who can sign in) leaves or is demoted only
   * while another such owner remains. An invitation not yet accepted is not an owner who can sign in,
   * so it never counts as the other owner, and it may itself be changed or removed. The statement
   * checks the member as they are under the lock, not as the page read them: an admin cannot undo a
   * promotion to owner made a moment before. Says what happened, or why nothing did.
   */
  async changeRole(organizationId: string, memberId: string, role: Role | null, actor: Role): Promise<'changed' | 'gone' | 'forbidden' | 'last_owner'> {
    const keepsAnOwner = `(role <> 'owner' OR password_hash IS NULL OR ${role === 'owner' ? 'true' : 'false'} OR EXISTS (
      SELECT 1 FROM console_members o WHERE o.organization_id = $1 AND o.role = 'owner' AND o.password_hash IS NOT NULL AND o.id <> $2))`;
    const guard = `${ownerTouchedBy(actor)} AND ${keepsAnOwner}`;
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [organizationId]);
      const rows: unknown[] =
        role === null
          ? await m.query(`DELETE FROM console_members WHERE organization_id = $1 AND id = $2 AND ${guard} RETURNING id`, [organizationId, memberId])
          : await m.query(`UPDATE console_members SET role = $3 WHERE organization_id = $1 AND id = $2 AND ${guard} RETURNING id`, [
              organizationId,
              memberId,
              role,
            ]);
      if (rowsOf(rows).length === 1) {
        // A link issued for the member's former role never signs in with the new one (an admin's invitation of a
        // developer, who is then made an owner): their unused links are withdrawn; whoever may, issues a new one.
        if (role !== null) await m.query(`DELETE FROM console_links WHERE member_id = $1 AND used_at IS NULL`, [memberId]);
        return 'changed';
      }
      const now: Array<{ role: Role }> = await m.query(`SELECT role FROM console_members WHERE organization_id = $1 AND id = $2`, [organizationId, memberId]);
      if (!now[0]) return 'gone';
      return now[0].role === 'owner' && actor !== 'owner' ? 'forbidden' : 'last_owner';
    });
  }

  /**
   * Takes one of the member's sign-in attempts before its password is checked: counted as a failure
   * until a success clears it (recordSignIn), and the attempt that reaches `maxAttempts` locks the
   * member until `lockUntil`. False while the member is locked: no check then. Taken under the row's
   * lock, so attempts sent at once cannot all be checked before the first failure is counted.
   */
  async takeSignInAttempt(memberId: string, now: Date, maxAttempts: number, lockUntil: Date): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `UPDATE console_members
          SET failed_attempts = CASE WHEN locked_until IS NOT NULL THEN 1 ELSE failed_attempts + 1 END,
              locked_until = CASE WHEN (CASE WHEN locked_until IS NOT NULL THEN 1 ELSE failed_attempts + 1 END) >= $3 THEN $4::timestamptz END
        WHERE id = $1 AND (locked_until IS NULL OR locked_until <= $2) RETURNING id`,
        [memberId, now, maxAttempts, lockUntil],
      ),
    );
    return rows.length === 1;
  }

  /**
   * Counts a failed sign-in of an email no member signs in with, as takeSignInAttempt counts a member's
   * (MAX attempts, then locked until `lockUntil`): whether the email is locked now (the attempt then counted
   * nothing). Up to 100 rows untouched since `forgetBefore` are removed on the way, so the table holds about
   * that long a stretch of misses.
   */
  async countSignInMiss(emailHash: string, now: Date, maxAttempts: number, lockUntil: Date, forgetBefore: Date): Promise<boolean> {
    await this.db.query(
      `DELETE FROM console_sign_in_misses WHERE email_hash IN (SELECT email_hash FROM console_sign_in_misses WHERE updated_at < $1 LIMIT 100)`,
      [forgetBefore],
    );
    const rows = rowsOf(
      await this.db.query(
        `INSERT INTO console_sign_in_misses AS m (email_hash, failed_attempts, locked_until, updated_at)
         VALUES ($1, 1, CASE WHEN 1 >= $3 THEN $4::timestamptz END, $2)
         ON CONFLICT (email_hash) DO UPDATE
            SET failed_attempts = CASE WHEN m.locked_until IS NOT NULL THEN 1 ELSE m.failed_attempts + 1 END,
                locked_until = CASE WHEN (CASE WHEN m.locked_until IS NOT NULL THEN 1 ELSE m.failed_attempts + 1 END) >= $3 THEN $4::timestamptz END,
                updated_at = $2
          WHERE m.locked_until IS NULL OR m.locked_until <= $2
         RETURNING locked_until`,
        [emailHash, now, maxAttempts, lockUntil],
      ),
    ) as Array<{ locked_until: Date | null }>;
    return rows.length === 0 || (rows[0].locked_until !== null && rows[0].locked_until > now);
  }

  /** Gives back an attempt taken with takeSignInAttempt that was not a guess at this member's password (another member's matched), and the lock it set. */
  async giveBackSignInAttempt(memberId: string, maxAttempts: number): Promise<void> {
    await this.db.query(
      `UPDATE console_members
          SET locked_until = CASE WHEN failed_attempts - 1 < $2 THEN NULL ELSE locked_until END,
              failed_attempts = GREATEST(failed_attempts - 1, 0)
        WHERE id = $1`,
      [memberId, maxAttempts],
    );
  }

  async recordSignIn(memberId: string, now: Date): Promise<void> {
    await this.db.query(`UPDATE console_members SET failed_attempts = 0, locked_until = NULL, last_sign_in_at = $2 WHERE id = $1`, [memberId, now]);
  }

  async unlock(organizationId: string, memberId: string): Promise<void> {
    await this.db.query(`UPDATE console_members SET failed_attempts = 0, locked_until = NULL WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      memberId,
    ]);
  }

  /**
   * Opens a session for a member whose password is still `passwordHash` (the one just checked): false
   * when it changed meanwhile. The member's row is read FOR SHARE, so a password set through a link
   * either waits for this session and then ends it, or comes first and this opens none.
   */
  async insertSession(tokenHash: string, memberId: string, csrfToken: string, now: Date, ip: string | null, passwordHash: string): Promise<boolean> {
    const rows = rowsOf(
      await this.db.query(
        `INSERT INTO console_sessions (token_hash, member_id, csrf_token, created_at, last_seen_at, ip)
       SELECT $1, id, $3, $4, $4, $5 FROM console_members WHERE id = $2 AND password_hash = $6 FOR SHARE
       RETURNING token_hash`,
        [tokenHash, memberId, csrfToken, now, ip, passwordHash],
      ),
    );
    return rows.length === 1;
  }

  async session(tokenHash: string): Promise<SessionRow | null> {
    const rows: SessionRow[] = await this.db.query(`SELECT * FROM console_sessions WHERE token_hash = $1`, [tokenHash]);
    return rows[0] ?? null;
  }

  async touchSession(tokenHash: string, now: Date): Promise<void> {
    await this.db.query(`UPDATE console_sessions SET last_seen_at = $2 WHERE token_hash = $1`, [tokenHash, now]);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.query(`DELETE FROM console_sessions WHERE token_hash = $1`, [tokenHash]);
  }

  async deleteSessionsOf(memberId: string): Promise<void> {
    await this.db.query(`DELETE FROM console_sessions WHERE member_id = $1`, [memberId]);
  }

  /**
   * Stores a member's new link; the member's other unused links are withdrawn (one live link a member). Under
   * the members' lock, only while `actor` may still touch the member as they are now (an admin never gets a
   * link of a member made an owner a moment ago, whose role change would have withdrawn it): false otherwise.
   */
  async insertLink(
    organizationId: string,
    tokenHash: string,
    memberId: string,
    kind: 'invite' | 'reset',
    expiresAt: Date,
    actor: Role | null,
  ): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('console_members:' || $1))`, [organizationId]);
      const member: unknown[] = await m.query(`SELECT 1 FROM console_members WHERE organization_id = $1 AND id = $2 AND ${ownerTouchedBy(actor)}`, [
        organizationId,
        memberId,
      ]);
      if (!member.length) return false;
      await m.query(`DELETE FROM console_links WHERE member_id = $1 AND used_at IS NULL`, [memberId]);
      await m.query(`INSERT INTO console_links (token_hash, member_id, kind, expires_at) VALUES ($1, $2, $3, $4)`, [tokenHash, memberId, kind, expiresAt]);
      return true;
    });
  }

  /** The member a live (unused, unexpired) link belongs to; null otherwise. */
  async liveLink(tokenHash: string, now: Date): Promise<{ member: MemberRow; kind: 'invite' | 'reset' } | null> {
    const rows: Array<{ member_id: string; kind: 'invite' | 'reset' }> = await this.db.query(
      `SELECT member_id, kind FROM console_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`,
      [tokenHash, now],
    );
    if (!rows[0]) return null;
    const members: MemberRow[] = await this.db.query(`SELECT * FROM console_members WHERE id = $1`, [rows[0].member_id]);
    return members[0] ? { member: members[0], kind: rows[0].kind } : null;
  }

  /**
   * Uses a link once to set its member's password, in one transaction: the link marked used (false for
   * every caller but the one that marked it), the member's other unused links withdrawn, the password
   * and a clean lockout set, and every session of the member ended. A failure leaves the link usable.
   */
  async setPasswordByLink(tokenHash: string, now: Date, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const rows = rowsOf(
        await m.query(`UPDATE console_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING member_id`, [
          tokenHash,
          now,
        ]),
      ) as Array<{ member_id: string }>;
      if (rows.length !== 1) return false;
      const memberId = rows[0].member_id;
      await m.query(`DELETE FROM console_links WHERE member_id = $1 AND used_at IS NULL`, [memberId]);
      await m.query(`UPDATE console_members SET password_hash = $2, password_set_at = $3, failed_attempts = 0, locked_until = NULL WHERE id = $1`, [
        memberId,
        passwordHash,
        now,
      ]);
      await m.query(`DELETE FROM console_sessions WHERE member_id = $1`, [memberId]);
      return true;
    });
  }

  /**
   * Writes an audit entry after the action it records has committed; never throws. Failing the request then
   * would show the member an error for a done change (a rolled key's new secret never shown, an invoice made
   * twice by the retry): a lost entry is logged (`audit_entry_not_written`) instead.
   */
  async audit(entry: AuditEntry, now: Date): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO console_audit_log (id, organization_id, mode, actor_type, actor_id, action, target, ip, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [newId('audit'), entry.organization_id, entry.mode, entry.actor_type, entry.actor_id, entry.action, entry.target, entry.ip, now],
      );
    } catch (e) {
      this.logger.error({ msg: 'audit entry not written', event: 'audit_entry_not_written', err: (e as Error).message, ...entry });
    }
  }

  /**
   * The organization's audit log, newest first; `before` is the last id of the previous page. With
   * `onlyMode`, only that mode's entries (none of the organization-wide ones, such as sign-ins).
   */
  async auditLog(organizationId: string, limit: number, before?: string, onlyMode?: Mode): Promise<AuditRow[]> {
    return this.db.query(
      `SELECT * FROM console_audit_log WHERE organization_id = $1 AND ($2::text IS NULL OR id < $2) AND ($4::text IS NULL OR mode = $4)
        ORDER BY id DESC LIMIT $3`,
      [organizationId, before ?? null, limit, onlyMode ?? null],
    );
  }
}

/**
 * The condition a statement changing a member adds for who changes it: only an owner touches an owner
 * (`actor` null: the operator's command line, which may do anything).
 */
function ownerTouchedBy(actor: Role | null): string {
  return actor === null || actor === 'owner' ? 'true' : `role <> 'owner'`;
}

/** UPDATE/DELETE ... RETURNING through DataSource.query yields [rows, count] with the pg driver. */
function rowsOf(result: unknown): unknown[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as unknown[];
  return Array.isArray(result) ? result : [];
}
